import { pino, type Logger } from "pino";
import { currentTraceIds, NO_TRACE } from "./tracing";

export type { Logger };

/**
 * Paths that may hold secrets. Redaction is the last line of defence: code should not log these in
 * the first place, but a request object logged whole must still not leak a token or a secret.
 */
const REDACTED = [
  "password",
  "secret",
  "clientSecret",
  "client_secret",
  "signingSecret",
  "accessToken",
  "access_token",
  "authorization",
  "*.password",
  "*.secret",
  "*.clientSecret",
  "*.client_secret",
  "*.signingSecret",
  "*.accessToken",
  "*.access_token",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
];

/**
 * JSON logs, one line per event, with the active W3C trace and span ids so a line can be joined to
 * its trace. `service` names the process in every line.
 */
export function createLogger(opts: { service: string; level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: opts.level,
      base: { service: opts.service },
      messageKey: "message",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: "[redacted]" },
      mixin: currentTraceIds,
      // pino merges by mutating the mixin's object; the shared empty one must stay untouched.
      mixinMergeStrategy: (merge, mixin) => (mixin === NO_TRACE ? merge : Object.assign(mixin, merge)),
    },
    opts.destination,
  );
}
