import { isUuid } from "@tawsil/domain";
import { NotFoundError, ValidationError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import type { Environment } from "../domain/environment";
import type { CredentialGenerator, DriverClientRow, DriverClientStore, SecretHasher } from "./ports";
import { revocationSecondPassed } from "./revocation-second";

export type { DriverClientRow };

/**
 * Drivers' OAuth clients (decisions.md section 17): one per driver registered with dispatch. A
 * secret exists in clear only in the response that creates or rotates it; it is never logged.
 */
export class DriverClients {
  constructor(private readonly deps: { clients: DriverClientStore; secrets: SecretHasher; credentials: CredentialGenerator; environment: Environment; logger: Logger }) {}

  async create(input: { driverId: string }): Promise<{ client: DriverClientRow; secret: string }> {
    const driverId = driverIdOf(input.driverId);
    const secret = this.deps.credentials.clientSecret();
    const client = await this.deps.clients.create({ clientId: this.deps.credentials.clientId(), driverId, secretHash: await this.deps.secrets.hash(secret), environment: this.deps.environment });
    this.deps.logger.info({ clientId: client.clientId, driverId }, "driver client created");
    return { client, secret };
  }

  list(limit: number): Promise<DriverClientRow[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000) throw new ValidationError("limit", "must be from 0 to 1000");
    return this.deps.clients.list(limit === 0 ? 200 : limit);
  }

  async setEnabled(driverId: string, enabled: boolean): Promise<DriverClientRow> {
    const client = await this.deps.clients.setEnabled(driverIdOf(driverId), enabled);
    if (!client) throw new NotFoundError("driver client");
    if (!enabled) await revocationSecondPassed();
    this.deps.logger.info({ clientId: client.clientId, driverId: client.driverId, enabled }, enabled ? "driver client enabled" : "driver client disabled");
    return client;
  }

  async rotate(driverId: string): Promise<{ client: DriverClientRow; secret: string }> {
    const secret = this.deps.credentials.clientSecret();
    const client = await this.deps.clients.replaceSecret(driverIdOf(driverId), await this.deps.secrets.hash(secret));
    if (!client) throw new NotFoundError("driver client");
    // The new secret is handed out only once no token it gets can fall in the revocation's second.
    await revocationSecondPassed();
    this.deps.logger.info({ clientId: client.clientId, driverId: client.driverId }, "driver client secret rotated");
    return { client, secret };
  }
}

function driverIdOf(value: string): string {
  if (!isUuid(value)) throw new ValidationError("driver_id", "must be a uuid");
  return value.toLowerCase();
}
