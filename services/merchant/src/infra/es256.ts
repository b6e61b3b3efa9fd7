import { randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import type { ActiveSigningKey, GeneratedKey, PublicJwk, TokenSigner } from "../app/ports";

/** A key ready to sign: imported once, non-extractable. */
interface Es256Key extends ActiveSigningKey {
  readonly privateKey: CryptoKey;
}

/** The kid is the RFC 7638 SHA-256 thumbprint of the public key. */
export async function generateSigningKey(): Promise<GeneratedKey> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const { x, y } = await exportJWK(publicKey);
  if (!x || !y) throw new Error("exported EC public key without coordinates");
  const publicJwk: PublicJwk = { kty: "EC", crv: "P-256", x, y };
  return { kid: await calculateJwkThumbprint(publicJwk, "sha256"), publicJwk, pkcs8: Buffer.from(await exportPKCS8(privateKey), "utf8") };
}

export async function importSigningKey(kid: string, pkcs8: Buffer): Promise<Es256Key> {
  return { kid, privateKey: await importPKCS8(pkcs8.toString("utf8"), "ES256") };
}

/**
 * A compact JWS over `claims` with the RFC 9068 header: `{alg: ES256, kid, typ: at+jwt}`.
 * The caller sets every registered claim; nothing is defaulted here.
 */
export function signJwt(key: Es256Key, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" }).sign(key.privateKey);
}

function isEs256Key(key: ActiveSigningKey): key is Es256Key {
  return "privateKey" in key;
}

/** The TokenSigner port over jose; it signs only with keys it imported itself. */
export const es256Signer: TokenSigner = {
  generateKey: generateSigningKey,
  importKey: importSigningKey,
  tokenId: () => randomUUID(),
  sign(key, claims) {
    if (!isEs256Key(key)) throw new Error(`signing key ${key.kid} was not imported by the ES256 signer`);
    return signJwt(key, { ...claims });
  },
};
