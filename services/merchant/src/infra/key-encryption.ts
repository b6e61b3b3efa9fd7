import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { KeySealer } from "../app/ports";

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM sealing of signing keys at rest, under SIGNING_KEY_ENCRYPTION_KEY. A sealed value is
 * `version (1 byte) | iv (12) | tag (16) | ciphertext`; the version byte leaves room for another
 * scheme or key later. `context` (the key's kid) is authenticated as additional data, so a sealed
 * key copied onto another row fails to open instead of signing under the wrong kid.
 *
 * It seals under one key and opens under that one or any other it is given
 * (SIGNING_KEY_DECRYPTION_KEYS), trying each in turn (GCM's tag tells which sealed it; a handful of
 * rows, each opened once per signing key): what lets the key be rotated with replicas on both sides.
 */
export class KeyEncryption implements KeySealer {
  readonly #key: Buffer;
  readonly #openers: readonly Buffer[];

  constructor(key: Buffer, others: readonly Buffer[] = []) {
    for (const k of [key, ...others]) if (k.length !== 32) throw new Error("the key-encryption key must be 32 bytes");
    this.#key = Buffer.from(key);
    this.#openers = [this.#key, ...others.map((k) => Buffer.from(k))];
  }

  seal(plaintext: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws when the value was sealed under another key or context, or was altered. */
  open(sealed: Uint8Array, context: string): Buffer {
    const bytes = Buffer.from(sealed);
    if (bytes[0] !== FORMAT_VERSION || bytes.length <= 1 + IV_BYTES + TAG_BYTES) throw new Error("unknown sealed key format");
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const tag = bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    for (const key of this.#openers) {
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        // Not this key: the next one, if any, may open it.
      }
    }
    // OpenSSL's "unable to authenticate data" tells an operator nothing about what to fix.
    throw new Error(`the sealed key ${context} cannot be opened with SIGNING_KEY_ENCRYPTION_KEY or SIGNING_KEY_DECRYPTION_KEYS (another key sealed it, or it was altered)`);
  }
}
