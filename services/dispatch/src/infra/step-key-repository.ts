import type { KeyClaim, StepKeyStore } from "../app/step-keys";
import type { RawSql } from "@tawsil/db";

/** driver_step_request: one row per driver and Idempotency-Key, on the pool directly (every driver step runs these). */
export class StepKeyRepository implements StepKeyStore {
  constructor(private readonly db: RawSql) {}

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
    const [row] = await this.db.$queryRaw<{ fingerprint: string; completed: boolean }[]>`
      SELECT fingerprint, completed_at IS NOT NULL AS completed FROM driver_step_request WHERE driver_id = ${driverId}::uuid AND idempotency_key = ${key}`;
    // Released between the two statements: claim again.
    if (!row) return this.claim(driverId, key, fingerprint, abandonAfterMs);
    return { claimed: false, fingerprint: row.fingerprint, completed: row.completed };
  }

  async complete(driverId: string, key: string): Promise<void> {
    await this.db.$executeRaw`UPDATE driver_step_request SET completed_at = ${new Date()}::timestamptz WHERE driver_id = ${driverId}::uuid AND idempotency_key = ${key}`;
  }

  async release(driverId: string, key: string): Promise<void> {
    await this.db.$executeRaw`DELETE FROM driver_step_request WHERE driver_id = ${driverId}::uuid AND idempotency_key = ${key} AND completed_at IS NULL`;
  }
}
