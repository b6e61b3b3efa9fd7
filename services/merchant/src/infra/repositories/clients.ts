import { withTransaction } from "@tawsil/db";
import type { ClientCredentialsRow, ClientRow, ClientStore } from "../../app/ports";
import type { Environment } from "../../domain/environment";
import { announceAccessRevoked } from "../merchant-events";
import type { PrismaClient } from "../prisma/generated/client";

export class ClientRepository implements ClientStore {
  constructor(private readonly db: PrismaClient) {}

  create(input: { clientId: string; merchantId: string; name: string; secretHash: string; scopes: string[]; environment: Environment }): Promise<ClientRow> {
    return this.db.oAuthClient.create({ data: input, omit: { secretHash: true } });
  }

  findByClientId(clientId: string): Promise<ClientRow | null> {
    return this.db.oAuthClient.findUnique({ where: { clientId }, omit: { secretHash: true } });
  }

  /**
   * Returns null when the client does not exist or vanished meanwhile. Disabling revokes the
   * tokens already issued to the client, announced in the same transaction (the gateway acts on it).
   */
  setEnabled(clientId: string, enabled: boolean): Promise<ClientRow | null> {
    return withTransaction(this.db, async (tx) => {
      const { count } = await tx.oAuthClient.updateMany({ where: { clientId }, data: { enabled } });
      if (count === 0) return null;
      const client = await tx.oAuthClient.findUnique({ where: { clientId }, omit: { secretHash: true } });
      if (client && !enabled) await announceAccessRevoked(tx, client.merchantId, client.clientId);
      return client;
    });
  }

  /** The client and its merchant's status with one indexed join: token issuance's only query. */
  async findCredentials(clientId: string): Promise<ClientCredentialsRow | null> {
    const rows = await this.db.$queryRaw<ClientCredentialsRow[]>`
      SELECT c.client_id AS "clientId", c.merchant_id::text AS "merchantId", c.secret_hash AS "secretHash",
             c.scopes, c.environment::text AS environment, c.enabled, m.status::text AS "merchantStatus"
        FROM oauth_client c JOIN merchant m ON m.id = c.merchant_id
       WHERE c.client_id = ${clientId}`;
    return rows[0] ?? null;
  }
}
