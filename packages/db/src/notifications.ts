import pg from "pg";

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` over one dedicated connection, so a process sleeps until a transaction
 * that matters commits (NOTIFY is delivered at commit) instead of polling. The connection is
 * re-established after a failure; `onNotify` is also called after each (re)connection, because
 * notifications sent while it was down are lost. Resolves once the first LISTEN is in place.
 */
export async function listenForNotifications(opts: {
  url: string;
  channel: string;
  /** The notification's payload; undefined after each (re)connection, when some may have been missed. */
  onNotify: (payload: string | undefined) => void;
  logger: WarnLogger;
  retryMs?: number;
}): Promise<Listener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new Error(`channel ${opts.channel} is not a plain identifier`);
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: opts.url });
    next.on("notification", (message) => opts.onNotify(message.payload ?? ""));
    next.on("error", (err) => {
      opts.logger.warn({ err, channel: opts.channel }, "notification connection failed; reconnecting");
      void next.end().catch(() => undefined);
      schedule();
    });
    await next.connect();
    await next.query(`LISTEN ${opts.channel}`);
    client = next;
    opts.onNotify(undefined);
  };
  const schedule = () => {
    if (closed || retry) return;
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        opts.logger.warn({ err, channel: opts.channel }, "notification connection failed; reconnecting");
        schedule();
      });
    }, opts.retryMs ?? 1000);
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
