/**
 * `./tawsil <command>` (or `make tawsil ARGS="<command>"`): the operators' CLI. `shipments ...`
 * commands operate the shipment service (the approval queue); `drivers ...` dispatch's drivers and
 * their OAuth clients (dispatch and merchant); every other command the merchant
 * service (merchants, OAuth clients, saved locations, branches, rate cards, signing keys).
 * `./tawsil help` lists them. Which mesh it operates: see operator-env.ts.
 */
import { createAdminClient, failureOf } from "../services/merchant/src/cli/admin-client";
import { runCli } from "../services/merchant/src/cli/run-cli";
import { runShipmentCli, SHIPMENT_HELP } from "../services/shipment/src/cli/run-cli";
import { adminUrlSetting, DEAD_LETTER_HELP, DEAD_LETTER_SERVICES, runDeadLetterCli, type DeadLetterService } from "../packages/events/src/index";
import { DRIVERS_HELP, runDriversCli } from "../services/dispatch/src/cli/drivers-cli";
import { operatorEnv } from "./operator-env";

const argv = process.argv.slice(2);
const help = argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h";
const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };

async function main(): Promise<number> {
  const resolved = operatorEnv(process.env);
  if (argv[0] === "dead-letters") {
    const service = argv[1] ?? "";
    const setting = (DEAD_LETTER_SERVICES as readonly string[]).includes(service) ? adminUrlSetting(service as DeadLetterService) : undefined;
    if (setting && !resolved.env[setting]) {
      io.err(resolved.missing(setting));
      return 1;
    }
    return runDeadLetterCli(argv, { ...io, env: resolved.env });
  }
  if (argv[0] === "drivers") {
    const missing = ["DISPATCH_ADMIN_URL", "MERCHANT_ADMIN_URL"].find((name) => !resolved.env[name]);
    if (missing) {
      io.err(resolved.missing(missing));
      return 1;
    }
    return runDriversCli(argv, { ...io, env: resolved.env });
  }
  const shipments = argv[0] === "shipments";
  const needs = shipments ? (argv.includes("--merchant") || argv.some((a) => a.startsWith("--merchant=")) ? ["SHIPMENT_ADMIN_URL", "MERCHANT_ADMIN_URL"] : ["SHIPMENT_ADMIN_URL"]) : ["MERCHANT_ADMIN_URL"];
  const missing = help ? undefined : needs.find((name) => !resolved.env[name]);
  if (missing) {
    io.err(resolved.missing(missing));
    return 1;
  }
  const env = resolved.env;
  if (!shipments) {
    const code = await runCli(argv, { ...io, env });
    if (help && argv.length > 0) ["", ...SHIPMENT_HELP, "", ...DRIVERS_HELP, "", ...DEAD_LETTER_HELP].forEach((line) => io.out(line));
    return code;
  }
  const merchantAdmin = env.MERCHANT_ADMIN_URL ? createAdminClient(env.MERCHANT_ADMIN_URL) : undefined;
  return runShipmentCli(argv, {
    ...io,
    env,
    async merchantIdOf(code) {
      const merchant = await merchantAdmin!.getMerchantByCode({ code }).then(
        (res) => res.merchant,
        (error: unknown) => {
          throw new Error(`merchant ${code}: ${failureOf(error).message} (merchant admin listener at ${env.MERCHANT_ADMIN_URL})`);
        },
      );
      return merchant?.merchantId ?? "";
    },
  });
}

const code = await main();
// An idle HTTP/2 session to the service would otherwise keep the process alive for a while.
process.exit(code);
