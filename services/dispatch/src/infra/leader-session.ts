import type { Logger } from "@tawsil/logging";
import pg from "pg";
import type { LeaderRole } from "../app/ports";

export type { LeaderRole };

export interface LeaderSessionOptions {
  readonly url: string;
  /** Session advisory lock key, unique within the database. */
  readonly lockKey: number;
  /** LISTEN channels; notifications sent before LISTEN are not delivered, hence `lead()` catches up. */
  readonly channels: readonly string[];
  /** How often a follower tries the lock again, and the leader checks its connection is alive. */
  readonly retryMs: number;
  readonly logger: Logger;
  readonly role: LeaderRole;
}

/**
 * One leader among replicas for a background role, on a dedicated connection (never the pool: a
 * session lock and LISTEN belong to one session). The leader holds a session advisory lock and
 * listens for wake-ups; PostgreSQL releases the lock when the session dies, so a crashed leader's
 * role passes to a follower within `retryMs`. Followers cost one `pg_try_advisory_lock` per
 * `retryMs`, the leader one `SELECT 1`: constant, whatever the data.
 */
export class LeaderSession {
  #client: pg.Client | undefined;
  #leading = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #cycle: Promise<void> = Promise.resolve();

  constructor(private readonly opts: LeaderSessionOptions) {}

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#next(0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#cycle;
    await this.#drop();
  }

  #next(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#cycle = this.#attempt().finally(() => this.#next(this.opts.retryMs));
    }, delayMs);
  }

  /** One step of the campaign: connect if needed, then try the lock (follower) or check the session (leader). */
  async #attempt(): Promise<void> {
    try {
      const client = this.#client ?? (await this.#connect());
      if (this.#leading) {
        await client.query("SELECT 1");
        return;
      }
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [this.opts.lockKey]);
      if (!rows[0]?.locked || this.#closed) return;
      for (const channel of this.opts.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      this.#leading = true;
      this.opts.logger.info({ lockKey: this.opts.lockKey }, "leading");
      await this.opts.role.lead();
    } catch (err) {
      this.opts.logger.warn({ err }, "leader session failed; reconnecting");
      await this.#drop();
    }
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.opts.url, keepAlive: true, application_name: "dispatch-leader-session" });
    // A broken session ends leadership at once: PostgreSQL has released (or will release) the lock.
    client.on("error", (err) => {
      this.opts.logger.warn({ err }, "leader session connection failed");
      void this.#drop();
    });
    client.on("notification", (message) => {
      if (this.#leading) this.opts.role.notified(message.channel, message.payload ?? "");
    });
    this.#client = client;
    await client.connect();
    return client;
  }

  /** Steps down (if leading) and ends the session, which releases the lock. */
  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (this.#leading) {
      this.#leading = false;
      this.opts.logger.info({ lockKey: this.opts.lockKey }, "stepping down");
      await this.opts.role.stepDown();
    }
    await client?.end().catch(() => undefined);
  }
}
