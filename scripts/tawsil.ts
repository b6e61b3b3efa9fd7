/**
 * `pnpm tawsil <command>`: the operators' CLI. `shipments ...` commands operate the shipment
 * service (the approval queue); every other command the merchant service (merchants, OAuth
 * clients, saved locations, branches, rate cards, signing keys). `pnpm tawsil help` lists them.
 */
import { runShipmentCli, SHIPMENT_HELP } from "../services/shipment/src/cli/run-cli";
import { runCli } from "../services/merchant/src/cli/run-cli";

const argv = process.argv.slice(2);
const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line), env: process.env };
const code = argv[0] === "shipments" ? await runShipmentCli(argv, io) : await runCli(argv, io);
if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") ["", ...SHIPMENT_HELP].forEach((line) => io.out(line));
// An idle HTTP/2 session to the service would otherwise keep the process alive for a while.
process.exit(code);
