import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes (decisions.md section 11). */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
}

/**
 * The `webhook-signature` header of Standard Webhooks 1.0: `v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body` under each secret, space-separated (the current secret first, then the
 * previous one while it is valid).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const message = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac("sha256", keyOf(secret)).update(message).digest("base64")}`).join(" ");
}
