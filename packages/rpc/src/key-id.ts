import { createHash, createPublicKey, type KeyObject } from "node:crypto";

/**
 * The id of an Ed25519 key: its RFC 7638 JWK thumbprint (SHA-256 of the canonical JWK, base64url).
 * Derived from the key itself, so nobody assigns ids and the same key has the same id on every
 * pod; a private key's id is its public key's, which is how a callee finds the key a token needs.
 */
export function keyIdOf(key: KeyObject): string {
  const jwk = (key.type === "private" ? createPublicKey(key) : key).export({ format: "jwk" });
  // RFC 7638: the required members of an OKP key, in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash("sha256").update(canonical).digest("base64url");
}
