import type { Closer } from "@tawsil/rpc";
import type { Logger } from "@tawsil/logging";
import { withTransaction } from "@tawsil/db";
import { Gauge, type Registry } from "prom-client";
import type { PrismaClient } from "./prisma/generated/client";
import type { SecretBox } from "./secret-box";

/** Endpoints with a secret (current or previous) not sealed under the current key: their first bytes differ from its prefix. */
const UNDER_OTHER_KEYS = `substring(secret_sealed from 1 for $1::int) <> $2::bytea
  OR substring(previous_secret_sealed from 1 for $1::int) <> $2::bytea`;
const TAKE = `SELECT id, secret_sealed, previous_secret_sealed FROM webhook_endpoint WHERE ${UNDER_OTHER_KEYS}
  ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`;
const COUNT = `SELECT count(*)::int AS n FROM webhook_endpoint WHERE ${UNDER_OTHER_KEYS}`;

interface SealedRow {
  readonly id: string;
  readonly secret_sealed: Uint8Array;
  readonly previous_secret_sealed: Uint8Array | null;
}

/**
 * Moves every endpoint's secrets to the current sealing key in the background, in small batches
 * (each its own transaction, its rows locked and skipped by the other replicas' re-seal), and says
 * how many are left under other keys: webhook_secrets_sealed_under_other_keys, and one log line
 * when it reaches 0, after which the old key can leave WEBHOOK_SECRET_DECRYPTION_KEYS. Only the
 * sealed bytes change: the endpoint's version and updated_at stay, as its settings did not change.
 */
export class SecretResealer {
  readonly #left: Gauge;
  #reportedDone = false;

  constructor(
    private readonly db: PrismaClient,
    private readonly box: SecretBox,
    private readonly batchSize: number,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.#left = new Gauge({
      name: "webhook_secrets_sealed_under_other_keys",
      help: "Webhook endpoints with a signing secret not yet re-sealed under WEBHOOK_SECRET_ENCRYPTION_KEY; at 0 the keys of WEBHOOK_SECRET_DECRYPTION_KEYS can be removed.",
      registers: [registry],
    });
  }

  /** Re-seals one batch; returns how many endpoints it re-sealed. */
  async resealBatch(): Promise<number> {
    const prefix = this.box.currentPrefix;
    return withTransaction(this.db, async (tx) => {
      const rows = await tx.$queryRawUnsafe<SealedRow[]>(TAKE, prefix.length, prefix, this.batchSize);
      for (const row of rows) {
        const secretSealed = this.resealed(row.secret_sealed, row.id);
        const previousSecretSealed = row.previous_secret_sealed === null ? null : this.resealed(row.previous_secret_sealed, row.id);
        await tx.webhookEndpoint.update({ where: { id: row.id }, data: { secretSealed, previousSecretSealed } });
      }
      return rows.length;
    });
  }

  /** Endpoints still with a secret under another key; sets the gauge, and logs once when none is left. */
  async countLeft(): Promise<number> {
    const prefix = this.box.currentPrefix;
    const [row] = await this.db.$queryRawUnsafe<{ n: number }[]>(COUNT, prefix.length, prefix);
    const left = row?.n ?? 0;
    this.#left.set(left);
    if (left === 0 && !this.#reportedDone) this.logger.info("every webhook secret is sealed under WEBHOOK_SECRET_ENCRYPTION_KEY: the keys of WEBHOOK_SECRET_DECRYPTION_KEYS can be removed");
    this.#reportedDone = left === 0;
    return left;
  }

  /** One run: batches until none is left (or one finds nothing this replica may take), then the count. */
  async run(): Promise<number> {
    while ((await this.resealBatch()) === this.batchSize) {
      // A full batch: there may be more.
    }
    return this.countLeft();
  }

  private resealed(sealed: Uint8Array, endpointId: string): Uint8Array<ArrayBuffer> {
    return this.box.isCurrent(sealed) ? new Uint8Array(sealed) : this.box.seal(this.box.open(sealed, endpointId), endpointId);
  }
}

/** Runs the re-seal every `intervalMs` (first at once); a failed run is logged and tried again at the next. */
export function startResealing(resealer: SecretResealer, intervalMs: number, logger: Logger): Closer {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = resealer.run().catch((error: unknown) => logger.warn({ err: error }, "re-sealing webhook secrets failed; trying again at the next interval"));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    name: "secret re-seal",
    close: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
