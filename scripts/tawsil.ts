/**
 * `pnpm tawsil <command>`: the operators' CLI for the merchant service (merchants, OAuth clients,
 * saved locations, branches, rate cards, signing keys). `pnpm tawsil help` lists the commands.
 */
import { runCli } from "../services/merchant/src/cli/run-cli";

const code = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
});
// An idle HTTP/2 session to the service would otherwise keep the process alive for a while.
process.exit(code);
