import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey, type JWTPayload } from "jose";

/** The public half of a P-256 key, exactly the members RFC 7638 hashes into the kid. */
export interface PublicJwk {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
}

export interface GeneratedKey {
  /** RFC 7638 SHA-256 thumbprint of the public key. */
  readonly kid: string;
  readonly publicJwk: PublicJwk;
  /** PKCS#8 PEM of the private key: seal it before it goes anywhere. */
  readonly pkcs8: Buffer;
}

/** A key ready to sign: imported once, non-extractable. */
export interface ActiveSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
}

export async function generateSigningKey(): Promise<GeneratedKey> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const { x, y } = await exportJWK(publicKey);
  if (!x || !y) throw new Error("exported EC public key without coordinates");
  const publicJwk: PublicJwk = { kty: "EC", crv: "P-256", x, y };
  return { kid: await calculateJwkThumbprint(publicJwk, "sha256"), publicJwk, pkcs8: Buffer.from(await exportPKCS8(privateKey), "utf8") };
}

export async function importSigningKey(kid: string, pkcs8: Buffer): Promise<ActiveSigningKey> {
  return { kid, privateKey: await importPKCS8(pkcs8.toString("utf8"), "ES256") };
}

/**
 * A compact JWS over `claims` with the RFC 9068 header: `{alg: ES256, kid, typ: at+jwt}`.
 * The caller sets every registered claim; nothing is defaulted here.
 */
export function signJwt(key: ActiveSigningKey, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" }).sign(key.privateKey);
}
