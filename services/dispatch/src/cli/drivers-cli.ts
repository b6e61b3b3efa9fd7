import { parseArgs } from "node:util";
import { onboardDriver, rotateOrIssue, type DriverAdmins } from "@tawsil/driver-onboarding";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { DriverAdminService, type RegisteredDriver } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";

/*
 * `./tawsil drivers ...`: production drivers (decisions.md section 17). A driver is dispatch's
 * (DriverAdminService on its admin listener); its OAuth client is the merchant service's
 * (MerchantAdminService, where every client's secret is hashed and its tokens signed and revoked).
 */

export const DRIVERS_HELP = [
  "Operates drivers through dispatch's and merchant's admin listeners: DISPATCH_ADMIN_URL and MERCHANT_ADMIN_URL",
  "(else those of .dev/credentials.env; in a cluster, `kubectl port-forward deploy/dispatch 7014` and deploy/merchant 7011):",
  "  drivers add      register a driver and issue its OAuth client; prints the secret, once",
  "                     drivers add --name NAME --city RUH --carrier SAQR --vehicle BIKE|CAR|VAN|COLD_CHAIN_VAN",
  "  drivers list     the registered drivers: id, name, city, carrier, vehicle, shift, client id and state",
  "  drivers disable  disable a driver's client (its tokens stop within 60 s) and take it off shift",
  "                     drivers disable <driverId>",
  "  drivers enable   enable a driver's client again                       drivers enable <driverId>",
  "  drivers rotate   give a driver's client a new secret (printed once; old tokens revoked), or",
  "                     issue its first client if an interrupted `drivers add` left it without one",
  "                     drivers rotate <driverId>",
];

export interface DriversCliIo {
  out(line: string): void;
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

const VEHICLES = ["BIKE", "CAR", "VAN", "COLD_CHAIN_VAN"] as const;
const SECRET_WARNING = "WARNING: store the client secret now; it is shown only this once and cannot be shown again.";

type Admins = DriverAdmins;

function driverLine(driver: RegisteredDriver, client: { clientId: string; enabled: boolean } | undefined): string {
  const vehicle = ServiceLevel[driver.vehicle] ?? String(driver.vehicle);
  const access = client ? `${client.clientId} ${client.enabled ? "enabled" : "disabled"}` : "no client";
  return `${driver.driverId}  ${driver.name}  ${driver.cityCode}  ${driver.carrierCode} ${vehicle}  ${driver.onShift ? "on shift" : "off shift"}  ${access}`;
}

/** One `drivers` command against the admin listeners given. */
export async function runDriversCommand(command: string, rest: readonly string[], admins: Admins, io: DriversCliIo): Promise<void> {
  if (command === "add") {
    const { values } = parseArgs({ args: [...rest], options: { name: { type: "string" }, city: { type: "string" }, carrier: { type: "string" }, vehicle: { type: "string" } }, strict: true });
    for (const flag of ["name", "city", "carrier", "vehicle"] as const) if (!values[flag]) throw new UsageError(`--${flag} is required`);
    const vehicle = VEHICLES.find((v) => v === values.vehicle);
    if (!vehicle) throw new UsageError(`--vehicle must be one of ${VEHICLES.join(", ")}`);
    const onboarded = await onboardDriver(admins, { name: values.name!, cityCode: values.city!, carrierCode: values.carrier!, vehicle: ServiceLevel[vehicle] });
    io.out(`driver_id      ${onboarded.driver.driverId}`);
    io.out(`client_id      ${onboarded.clientId}`);
    io.out(`client_secret  ${onboarded.clientSecret}`);
    io.err(SECRET_WARNING);
    return;
  }
  if (command === "list") {
    if (rest.length > 0) throw new UsageError("usage: ./tawsil drivers list");
    const [{ drivers }, { clients }] = await Promise.all([admins.drivers.listDrivers({ limit: 1000 }), admins.clients.listDriverClients({ limit: 1000 })]);
    const byDriver = new Map(clients.map((client) => [client.driverId, client]));
    if (drivers.length === 0) io.out("no driver yet; add one with `drivers add`");
    for (const driver of drivers) io.out(driverLine(driver, byDriver.get(driver.driverId)));
    return;
  }
  const [driverId, extra] = rest;
  if (!driverId || extra !== undefined) throw new UsageError(`usage: ./tawsil drivers ${command} <driverId>`);
  if (command === "disable" || command === "enable") {
    const { client } = await admins.clients.setDriverClientEnabled({ driverId, enabled: command === "enable" });
    // Revoked first, then off shift: a disabled driver must not keep getting offers it cannot answer.
    if (command === "disable") await admins.drivers.takeDriverOffShift({ driverId });
    io.out(`${driverId}  client ${client?.clientId ?? ""} ${client?.enabled ? "enabled" : "disabled"}`);
    return;
  }
  if (command === "rotate") {
    // A driver without a client has never been on shift, so taking it off changes nothing: it only
    // asks dispatch whether the driver is registered (NotFound otherwise), however many drivers there are.
    const { clientId, clientSecret } = await rotateOrIssue(admins.clients, driverId, () => admins.drivers.takeDriverOffShift({ driverId }));
    io.out(`client_id      ${clientId}`);
    io.out(`client_secret  ${clientSecret}`);
    io.err(SECRET_WARNING);
    return;
  }
  throw new UsageError(`unknown command "drivers ${command}"; see \`./tawsil help\``);
}

/** Runs `drivers <command> ...` and returns the exit code; a failure prints one line, never a stack. */
export async function runDriversCli(argv: readonly string[], io: DriversCliIo): Promise<number> {
  const [, command = "", ...rest] = argv;
  const dispatchUrl = io.env.DISPATCH_ADMIN_URL ?? "";
  const merchantUrl = io.env.MERCHANT_ADMIN_URL ?? "";
  try {
    if (!dispatchUrl || !merchantUrl) throw new UsageError("DISPATCH_ADMIN_URL and MERCHANT_ADMIN_URL must both be set; see `./tawsil help`");
    // Hashing a secret or locking rows: more than a peer's default deadline.
    const admins = { drivers: createPeerClient(DriverAdminService, dispatchUrl, { timeoutMs: 10_000 }), clients: createPeerClient(MerchantAdminService, merchantUrl, { timeoutMs: 10_000 }) };
    await runDriversCommand(command, rest, admins, io);
    return 0;
  } catch (error) {
    io.err(`tawsil: ${error instanceof Error ? ("rawMessage" in error && typeof error.rawMessage === "string" ? error.rawMessage : error.message) : String(error)}`);
    return 1;
  }
}
