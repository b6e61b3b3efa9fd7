import type { Logger } from "@tawsil/logging";
import type { Elect } from "../app/ports";
import { LeaderSession } from "./leader-session";
import { DISPATCHER_CHANNEL } from "./wake-ups";

/** Session advisory lock keys, unique within dispatch's database (the outbox relay uses 0x7a777301). */
const LOCKS = { dispatcher: { lockKey: 0x7a_77_73_10, channel: DISPATCHER_CHANNEL } } as const;

/** Leadership of a background role by a PostgreSQL session lock, on its own connection. */
export function electOver(opts: { databaseUrl: string; retryMs: number; logger: Logger }): Elect {
  return (role, channel) => {
    const { lockKey, channel: pgChannel } = LOCKS[channel];
    const logger = opts.logger.child({ component: role.name });
    return new LeaderSession({ url: opts.databaseUrl, lockKey, channels: [pgChannel], retryMs: opts.retryMs, logger, role });
  };
}
