import { Writable } from "node:stream";
import { createLogger, type Logger } from "@tawsil/logging";

/** A debug logger whose every output line is kept, to prove what never reaches the logs. */
export function capturedLogger(service: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ service, level: "debug", destination }), lines };
}
