import { randomBytes } from "node:crypto";
import { CLIENT_ID_PREFIX } from "@tawsil/domain";
import type { CredentialGenerator } from "../app/ports";

/**
 * Recognizable prefixes: a leaked secret is easy to find with a scanner, and a client id pasted
 * where a secret belongs (or the reverse) is obvious.
 */
export const CLIENT_SECRET_PREFIX = "tws_sk_";

/** 128 random bits: ids are public but must not be guessable in sequence. The gateway checks this shape (isWellFormedClientId) before it asks for a token. */
export function generateClientId(): string {
  return CLIENT_ID_PREFIX + randomBytes(16).toString("base64url");
}

/** 256 random bits, base64url (43 characters after the prefix). */
export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomBytes(32).toString("base64url");
}

export const randomCredentials: CredentialGenerator = { clientId: generateClientId, clientSecret: generateClientSecret };
