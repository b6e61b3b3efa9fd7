import pg from "pg";

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * How long one attempt to connect and LISTEN may take. node-postgres waits forever by default, so
 * a port that accepts and never answers (a port mapping with no server behind it yet) held a
 * service's start for good: an end-to-end mesh's shipment was never ready in 90 s, silent, its
 * outbox relay's listener still connecting.
 */
const ATTEMPT_TIMEOUT_MS = 5_000;

/**
 * LISTENs on `channel` over one dedicated connection, so a process sleeps until a transaction
 * that matters commits (NOTIFY is delivered at commit) instead of polling. The connection is
 * re-established after a failure; `onNotify` is also called after each (re)connection, because
 * notifications sent while it was down are lost. Each attempt gives up after `attemptTimeoutMs`
 * and is retried after `retryMs`, the first one too: resolves once the first LISTEN is in place.
 */
export async function listenForNotifications(opts: {
  url: string;
  channel: string;
  /** The notification's payload; undefined after each (re)connection, when some may have been missed. */
  onNotify: (payload: string | undefined) => void;
  logger: WarnLogger;
  retryMs?: number;
  attemptTimeoutMs?: number;
}): Promise<Listener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new Error(`channel ${opts.channel} is not a plain identifier`);
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const warnFailed = (err: unknown) => opts.logger.warn({ err, channel: opts.channel }, "notification connection failed; reconnecting");

  const connect = async (): Promise<void> => {
    const attemptTimeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    const next = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: attemptTimeoutMs, query_timeout: attemptTimeoutMs });
    next.on("notification", (message) => opts.onNotify(message.payload ?? ""));
    next.on("error", (err) => {
      // An attempt's own failure is its caller's to retry; only the listening connection is reconnected here.
      if (client !== next) return;
      warnFailed(err);
      void next.end().catch(() => undefined);
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${opts.channel}`);
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    client = next;
    opts.onNotify(undefined);
  };
  const schedule = () => {
    if (closed || retry) return;
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        warnFailed(err);
        schedule();
      });
    }, opts.retryMs ?? 1000);
  };

  for (;;) {
    try {
      await connect();
      break;
    } catch (err) {
      warnFailed(err);
      await new Promise((resolve) => setTimeout(resolve, opts.retryMs ?? 1000));
    }
  }
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
