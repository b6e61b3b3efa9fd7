import { runDriversCli } from "../../../services/dispatch/src/cli/drivers-cli";
import type { TestMesh } from "./test-mesh";

/** A driver as `./tawsil drivers add` prints it: the client secret is shown this once. */
export interface RegisteredDriver {
  readonly driverId: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** `./tawsil drivers ...` as an operator runs it (the CLI's code path), against a mesh's admin listeners; its output lines. */
export async function tawsilDrivers(testMesh: TestMesh, ...args: string[]): Promise<string[]> {
  const adminUrl = (name: string) => testMesh.mesh.processes.find((p) => p.name === name)!.adminUrl!;
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDriversCli(["drivers", ...args], { out: (line) => out.push(line), err: (line) => err.push(line), env: { DISPATCH_ADMIN_URL: adminUrl("dispatch"), MERCHANT_ADMIN_URL: adminUrl("merchant") } });
  if (code !== 0) throw new Error(`drivers ${args.join(" ")} failed: ${err.join("; ")}`);
  return out;
}

/** Registers a driver of a carrier service in a city, with its own OAuth client. */
export async function registerDriver(testMesh: TestMesh, driver: { name: string; city: string; carrier: string; vehicle: string }): Promise<RegisteredDriver> {
  const lines = await tawsilDrivers(testMesh, "add", "--name", driver.name, "--city", driver.city, "--carrier", driver.carrier, "--vehicle", driver.vehicle);
  const value = (label: string) => lines.find((line) => line.startsWith(`${label} `))?.slice(label.length).trim() ?? "";
  return { driverId: value("driver_id"), clientId: value("client_id"), clientSecret: value("client_secret") };
}
