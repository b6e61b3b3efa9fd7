import { withTransaction, type TransactionClient } from "@tawsil/db";
import { AlreadyExistsError, NotFoundError } from "@tawsil/errors";
import type { Endpoint } from "../domain/endpoint";
import { assertVersion } from "../domain/endpoint";
import type { EndpointStore, LockedEndpoint, Modification } from "../app/ports";
import { endpointFromRow, endpointToRow } from "./endpoint-rows";
import { announceEndpointChange } from "./endpoint-routes";
import type { PrismaClient, WebhookEndpoint } from "./prisma/generated/client";
import type { SecretBox } from "./secret-box";

const LOCK = `SELECT id FROM webhook_endpoint WHERE merchant_id = $1::uuid FOR UPDATE`;

/*
 * A pause takes the endpoint's pending deliveries out of the claim index, a resume puts them back
 * (`held`, migration claimable_index): one write per backlog row at the change, none per claim.
 * Under the endpoint's lock, so an event queued meanwhile (its insert holds a key share on the
 * endpoint row) is either seen here or reads the new status when queued.
 */
const HOLD = `UPDATE webhook_delivery SET held = $2 WHERE endpoint_id = $1::uuid AND status = 'PENDING' AND held <> $2`;

/** How old a held event may be at the resume and still be sent (decisions.md section 11). */
export const HELD_EVENT_MAX_AGE_MS = 24 * 3_600_000;

/*
 * At a resume, before the rest is released: the held events that occurred before the cutoff are
 * dropped, complete (retention removes them) and never sent. Held rows only: a pending retry of
 * an active endpoint is not the pause's to drop.
 */
const DROP_STALE_HELD = `
UPDATE webhook_delivery SET status = 'DROPPED', held = false, claim_token = NULL, completed_at = $3, last_error = 'held by a pause for over 24 h'
WHERE endpoint_id = $1::uuid AND status = 'PENDING' AND held AND occurred_at < $2`;

/**
 * Endpoints in the webhook database; every change runs under the endpoint's row lock, and
 * announces itself in its transaction (ENDPOINTS_CHANNEL: every replica's routes cache drops its
 * entries on commit). `changed` runs once a change committed, before the caller is answered, so
 * this replica's consumer reads the change even before the notification arrives.
 */
export class PrismaEndpointStore implements EndpointStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly box: SecretBox,
    private readonly changed: () => void = () => undefined,
    /** Counts the held events a resume dropped (the metric the contract asks for). */
    private readonly dropped: (count: number) => void = () => undefined,
  ) {}

  async find(merchantId: string): Promise<Endpoint | undefined> {
    const row = await this.db.webhookEndpoint.findUnique({ where: { merchantId } });
    return row ? endpointFromRow(row, this.box) : undefined;
  }

  async insert(endpoint: Endpoint): Promise<void> {
    try {
      await withTransaction(this.db, async (tx) => {
        await tx.webhookEndpoint.create({ data: endpointToRow(endpoint, this.box) });
        await announceEndpointChange(tx, endpoint.merchantId);
      });
      this.changed();
    } catch (error) {
      if (typeof error === "object" && error !== null && "code" in error && error.code === "P2002") throw new AlreadyExistsError("webhook", endpoint.merchantId);
      throw error;
    }
  }

  async modify(merchantId: string, modify: (locked: LockedEndpoint) => Promise<Modification>): Promise<Endpoint> {
    let droppedHere = 0;
    const modified = await withTransaction(this.db, async (tx) => {
      droppedHere = 0;
      const row = await this.#locked(tx, merchantId);
      const current = endpointFromRow(row, this.box);
      const { endpoint, rotatedAt, unchanged, at = new Date() } = await modify({
        endpoint: current,
        rotationsSince: async (since) =>
          (await tx.secretRotation.findMany({ where: { merchantId, rotatedAt: { gte: since } }, orderBy: { rotatedAt: "asc" }, select: { rotatedAt: true } })).map((r) => r.rotatedAt),
      });
      if (unchanged) return endpoint;
      const { id: _id, merchantId: _merchant, createdAt: _created, ...fields } = endpointToRow(endpoint, this.box);
      await tx.webhookEndpoint.update({ where: { id: current.id }, data: fields });
      if (current.status === "PAUSED" && endpoint.status !== "PAUSED") {
        droppedHere = await tx.$executeRawUnsafe(DROP_STALE_HELD, current.id, new Date(at.getTime() - HELD_EVENT_MAX_AGE_MS), at);
      }
      if (endpoint.status !== current.status) await tx.$executeRawUnsafe(HOLD, current.id, endpoint.status === "PAUSED");
      if (rotatedAt) await tx.secretRotation.create({ data: { merchantId, rotatedAt } });
      await announceEndpointChange(tx, merchantId);
      return endpoint;
    });
    this.changed();
    if (droppedHere > 0) this.dropped(droppedHere);
    return modified;
  }

  async remove(merchantId: string, expectedVersion: bigint): Promise<void> {
    await withTransaction(this.db, async (tx) => {
      const row = await this.#locked(tx, merchantId);
      assertVersion(endpointFromRow(row, this.box), expectedVersion);
      await tx.webhookEndpoint.delete({ where: { id: row.id } });
      await announceEndpointChange(tx, merchantId);
    });
    this.changed();
  }

  /** The merchant's endpoint row, locked until the transaction ends. */
  async #locked(tx: TransactionClient<PrismaClient>, merchantId: string): Promise<WebhookEndpoint> {
    await tx.$queryRawUnsafe(LOCK, merchantId);
    const row = await tx.webhookEndpoint.findUnique({ where: { merchantId } });
    if (!row) throw new NotFoundError("webhook");
    return row;
  }
}
