import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { DriverAdminService, RegisteredDriver } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import type { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";

/*
 * A driver is dispatch's (DriverAdminService) and its OAuth client the merchant service's
 * (MerchantAdminService, where every client's secret is hashed and its tokens signed and revoked):
 * onboarding spans two admin listeners. It lives here, not in either service, because both the
 * operators' CLI (`./tawsil drivers add`) and the sandbox fleet (a process of its own, which must not
 * reach into dispatch's internals) onboard drivers the same way.
 */

export interface DriverAdmins {
  readonly drivers: Client<typeof DriverAdminService>;
  readonly clients: Client<typeof MerchantAdminService>;
}

export interface NewDriver {
  readonly name: string;
  readonly cityCode: string;
  readonly carrierCode: string;
  readonly vehicle: ServiceLevel;
  /** One of the sandbox fleet's own drivers (sandbox only; kept out of operators' lists). */
  readonly sandboxFleet?: boolean;
}

export interface OnboardedDriver {
  readonly driver: RegisteredDriver;
  readonly clientId: string;
  /** Shown once: never logged, never stored by the caller beyond its use. */
  readonly clientSecret: string;
}

/** The driver exists but has no client: the message says how to finish (`drivers rotate` issues a first client). */
export class DriverClientNotIssuedError extends Error {
  override readonly name = "DriverClientNotIssuedError";
  constructor(
    readonly driverId: string,
    cause: unknown,
  ) {
    super(`driver ${driverId} registered, but its client was not issued (${cause instanceof Error ? cause.message : String(cause)}); issue it with \`drivers rotate ${driverId}\``, { cause });
  }
}

/** Registers a driver (off shift) and issues its OAuth client. */
export async function onboardDriver(admins: DriverAdmins, driver: NewDriver): Promise<OnboardedDriver> {
  const { driver: registered } = await admins.drivers.registerDriver({ ...driver, sandboxFleet: driver.sandboxFleet ?? false });
  if (!registered) throw new Error("RegisterDriver answered no driver");
  const issued = await admins.clients.createDriverClient({ driverId: registered.driverId }).catch((error: unknown) => {
    throw new DriverClientNotIssuedError(registered.driverId, error);
  });
  return { driver: registered, clientId: issued.client?.clientId ?? "", clientSecret: issued.clientSecret };
}

/**
 * A new secret for the driver's client; a registered driver with no client yet (an onboarding
 * whose second call failed: a `drivers add`, or a sandbox fleet stopped between the two) gets its
 * first one, so the operator mends it with the same command and the fleet brings such a driver on
 * shift instead of failing its rotation at every try. The merchant service does not know which
 * drivers dispatch has: `confirmRegistered` says so before a first client is issued, and throws
 * (NotFound) for a driver that is not.
 */
export async function rotateOrIssue(
  clients: DriverAdmins["clients"],
  driverId: string,
  confirmRegistered: () => Promise<unknown>,
): Promise<{ clientId: string; clientSecret: string }> {
  try {
    const { client, clientSecret } = await clients.rotateDriverClient({ driverId });
    return { clientId: client?.clientId ?? "", clientSecret };
  } catch (error) {
    if (!(error instanceof ConnectError && error.code === Code.NotFound)) throw error;
    await confirmRegistered();
    const { client, clientSecret } = await clients.createDriverClient({ driverId });
    return { clientId: client?.clientId ?? "", clientSecret };
  }
}
