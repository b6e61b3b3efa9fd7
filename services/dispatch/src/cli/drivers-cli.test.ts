import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import type { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { describe, expect, it } from "vitest";
import { runDriversCommand } from "./drivers-cli";

const REGISTERED = "3f0c2a4e-8a51-4c1e-9f7a-2d6b1e0c9a11";
const UNKNOWN = "7b1d9e2c-4f6a-4e8b-a3c5-0d9f8e7a6b54";

/** The two admin listeners as the CLI calls them: one registered driver, whose client is missing unless `withClient`. */
function admins(withClient: boolean) {
  const calls: string[] = [];
  const drivers = {
    takeDriverOffShift: async ({ driverId }: { driverId: string }) => {
      calls.push(`off shift ${driverId}`);
      if (driverId !== REGISTERED) throw new ConnectError("driver not found", Code.NotFound);
      return { driver: { driverId } };
    },
  } as unknown as Client<typeof DriverAdminService>;
  const clients = {
    rotateDriverClient: async ({ driverId }: { driverId: string }) => {
      calls.push(`rotate ${driverId}`);
      if (!withClient) throw new ConnectError("driver client not found", Code.NotFound);
      return { client: { clientId: "drv_rotated", driverId, enabled: true }, clientSecret: "rotated-secret" };
    },
    createDriverClient: async ({ driverId }: { driverId: string }) => {
      calls.push(`create ${driverId}`);
      return { client: { clientId: "drv_first", driverId, enabled: true }, clientSecret: "first-secret" };
    },
  } as unknown as Client<typeof MerchantAdminService>;
  return { admins: { drivers, clients }, calls };
}

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line), env: {} } };
};

describe("drivers rotate", () => {
  it("gives an existing client a new secret, printed once", async () => {
    const { admins: both, calls } = admins(true);
    const { out, io: streams } = io();
    await runDriversCommand("rotate", [REGISTERED], both, streams);
    expect(out).toEqual(["client_id      drv_rotated", "client_secret  rotated-secret"]);
    expect(calls).toEqual([`rotate ${REGISTERED}`]);
  });

  it("issues the first client of a registered driver an interrupted `drivers add` left without one", async () => {
    const { admins: both, calls } = admins(false);
    const { out, io: streams } = io();
    await runDriversCommand("rotate", [REGISTERED], both, streams);
    expect(out).toEqual(["client_id      drv_first", "client_secret  first-secret"]);
    expect(calls).toEqual([`rotate ${REGISTERED}`, `off shift ${REGISTERED}`, `create ${REGISTERED}`]);
  });

  it("issues nothing for a driver dispatch does not know", async () => {
    const { admins: both, calls } = admins(false);
    const { out, io: streams } = io();
    await expect(runDriversCommand("rotate", [UNKNOWN], both, streams)).rejects.toThrow(/driver not found/);
    expect(out).toEqual([]);
    expect(calls).toEqual([`rotate ${UNKNOWN}`, `off shift ${UNKNOWN}`]);
  });
});
