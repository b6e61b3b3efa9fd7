import type { KeyClaim, StepKeyStore } from "../app/step-keys";
import type { PrismaClient } from "./prisma/generated/client";

/** driver_step_request: one row per driver and Idempotency-Key. */
export class StepKeyRepository implements StepKeyStore {
  constructor(private readonly db: PrismaClient) {}

  async claim(driverId: string, key: string, fingerprint: string, abandonAfterMs: number): Promise<KeyClaim> {
    // One statement: a new key is inserted; an abandoned claim (never completed, claimed long ago)
    // is taken over; anything else is left as it is and returns no row.
    const claimed = await this.db.$queryRaw<{ n: number }[]>`
      INSERT INTO driver_step_request (driver_id, idempotency_key, fingerprint)
      VALUES (${driverId}::uuid, ${key}, ${fingerprint})
      ON CONFLICT (driver_id, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, claimed_at = CURRENT_TIMESTAMP
       WHERE driver_step_request.completed_at IS NULL
         AND driver_step_request.claimed_at < CURRENT_TIMESTAMP - make_interval(secs => ${abandonAfterMs / 1000})
      RETURNING 1 AS n`;
    if (claimed.length > 0) return { claimed: true };
    const row = await this.db.driverStepRequest.findUnique({ where: { driverId_idempotencyKey: { driverId, idempotencyKey: key } }, select: { fingerprint: true, completedAt: true } });
    // Released between the two statements: claim again.
    if (!row) return this.claim(driverId, key, fingerprint, abandonAfterMs);
    return { claimed: false, fingerprint: row.fingerprint, completed: row.completedAt !== null };
  }

  async complete(driverId: string, key: string): Promise<void> {
    await this.db.driverStepRequest.updateMany({ where: { driverId, idempotencyKey: key }, data: { completedAt: new Date() } });
  }

  async release(driverId: string, key: string): Promise<void> {
    await this.db.driverStepRequest.deleteMany({ where: { driverId, idempotencyKey: key, completedAt: null } });
  }
}
