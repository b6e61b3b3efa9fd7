import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import type { SecretHasher } from "../app/ports";

/**
 * Client secrets are stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url). The cost
 * parameters travel with each hash, so raising them later leaves existing secrets verifiable.
 * N=2^14, r=8, p=1 costs about 16 MiB and tens of milliseconds per verification: the price of
 * every token issuance, and what makes a stolen table expensive to attack.
 */
export const SCRYPT_PARAMS = { N: 16_384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/**
 * A well-formed hash of a random value nobody kept. Verifying an unknown client's secret against
 * it costs what a real verification costs and always fails, so response time does not reveal
 * whether a client id exists.
 */
export const DUMMY_SECRET_HASH = "scrypt$16384$8$1$lfiMKqd2iz0wbNwFdiHdEQ$Oe1H_OFAk1ZBFfxIOtJNfpRClpZNn9QCvHIMmYYXR6I";

interface ParsedHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function derive(secret: string, salt: Buffer, length: number, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // Node refuses more than maxmem (32 MiB by default); allow what the parameters need, with room.
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r * params.p };
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize("NFC"), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(secret, salt, HASH_BYTES, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Whether `secret` matches `encoded`, compared in constant time. A malformed hash is a data bug and throws. */
export async function verifySecret(secret: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  const candidate = await derive(secret, parsed.salt, parsed.hash.length, parsed);
  return timingSafeEqual(candidate, parsed.hash);
}

function parseHash(encoded: string): ParsedHash {
  const parts = encoded.split("$");
  const [scheme, n, r, p, salt, hash] = parts;
  const integer = (value: string | undefined) => (value !== undefined && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN);
  const parsed = { N: integer(n), r: integer(r), p: integer(p) };
  if (parts.length !== 6 || scheme !== "scrypt" || Object.values(parsed).some(Number.isNaN) || !salt || !hash) {
    throw new Error("malformed secret hash");
  }
  return { ...parsed, salt: Buffer.from(salt, "base64url"), hash: Buffer.from(hash, "base64url") };
}

/** The SecretHasher port: an unknown client is verified against DUMMY_SECRET_HASH, so it costs the same. */
export const scryptSecrets: SecretHasher = {
  hash: hashSecret,
  async verify(secret, hash) {
    const matches = await verifySecret(secret, hash ?? DUMMY_SECRET_HASH);
    return matches && hash !== undefined;
  },
};
