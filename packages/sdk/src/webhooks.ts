import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { TawsilWebhookVerificationError } from "./errors.js";
import type { ShipmentEvent } from "./types.js";

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received (a re-serialised object would not verify). */
  payload: string | Uint8Array;
  /** The request's headers: a Headers object or Node's IncomingHttpHeaders. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /**
   * The endpoint's `whsec_` signing secret; during a rotation give both the new and the previous
   * one (either order): a delivery verifies when any of them signed it.
   */
  secret: string | readonly string[];
}

const HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function headerValues(headers: VerifyWebhookOptions["headers"]): Record<(typeof HEADERS)[number], string> {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(" ") : value;
  };
  const values = Object.fromEntries(HEADERS.map((name) => [name, get(name)]));
  const missing = HEADERS.filter((name) => values[name] === undefined || values[name] === null);
  if (missing.length > 0) throw new TawsilWebhookVerificationError(`missing header ${missing.join(", ")}`);
  return values as Record<(typeof HEADERS)[number], string>;
}

/**
 * Verifies a delivery with the official Standard Webhooks library (signature in constant time,
 * timestamp within 5 minutes) and returns its event; throws TawsilWebhookVerificationError when no
 * given secret signed it. Deduplicate on `event.id` and ignore an already applied `sequence`.
 */
export function verifyWebhook(options: VerifyWebhookOptions): ShipmentEvent {
  const headers = headerValues(options.headers);
  const payload = typeof options.payload === "string" ? options.payload : new TextDecoder().decode(options.payload);
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new TawsilWebhookVerificationError("no secret to verify with");
  let lastError: unknown;
  for (const secret of secrets) {
    try {
      return new Webhook(secret).verify(payload, headers) as ShipmentEvent;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      lastError = error;
    }
  }
  throw new TawsilWebhookVerificationError(`the delivery does not verify: ${(lastError as Error).message}`, { cause: lastError });
}
