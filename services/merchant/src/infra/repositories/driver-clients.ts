import { withTransaction } from "@tawsil/db";
import { AlreadyExistsError } from "@tawsil/errors";
import type { DriverClientRow, DriverClientStore, DriverCredentialsRow } from "../../app/ports";
import type { Environment } from "../../domain/environment";
import { announceAccessRevoked } from "../merchant-events";
import type { PrismaClient } from "../prisma/generated/client";
import { isUniqueViolation } from "../unique-violation";

const ROW = { clientId: true, driverId: true, enabled: true } as const;

export class DriverClientRepository implements DriverClientStore {
  constructor(private readonly db: PrismaClient) {}

  async create(input: { clientId: string; driverId: string; secretHash: string; environment: Environment }): Promise<DriverClientRow> {
    try {
      return await this.db.driverClient.create({ data: input, select: ROW });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExistsError("client of driver", input.driverId);
      throw error;
    }
  }

  list(limit: number): Promise<DriverClientRow[]> {
    return this.db.driverClient.findMany({ select: ROW, orderBy: { createdAt: "asc" }, take: limit });
  }

  /** Disabling revokes the client's live tokens, announced in the same transaction (the gateway acts on it). */
  setEnabled(driverId: string, enabled: boolean): Promise<DriverClientRow | null> {
    return this.#update(driverId, { enabled }, !enabled);
  }

  /** A new secret: tokens issued with the old one are revoked with it. */
  replaceSecret(driverId: string, secretHash: string): Promise<DriverClientRow | null> {
    return this.#update(driverId, { secretHash }, true);
  }

  findCredentials(clientId: string): Promise<DriverCredentialsRow | null> {
    return this.db.driverClient.findUnique({ where: { clientId }, select: { ...ROW, secretHash: true, environment: true } });
  }

  #update(driverId: string, data: { enabled?: boolean; secretHash?: string }, revoke: boolean): Promise<DriverClientRow | null> {
    return withTransaction(this.db, async (tx) => {
      const { count } = await tx.driverClient.updateMany({ where: { driverId }, data });
      if (count === 0) return null;
      const client = await tx.driverClient.findUnique({ where: { driverId }, select: ROW });
      // No merchant: the revocation names the client alone (events.proto AccessRevoked).
      if (client && revoke) await announceAccessRevoked(tx, "", client.clientId, new Date(), driverId);
      return client;
    });
  }
}
