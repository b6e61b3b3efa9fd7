import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** Format 1: `1 | iv | tag | ciphertext`, no key named (sealed before keys had ids); still opened. */
const UNNAMED_KEY_FORMAT = 1;
/** Format 2: `2 | key id (8) | iv | tag | ciphertext`, so a row says which key sealed it. */
const NAMED_KEY_FORMAT = 2;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealing key's id: the first 8 bytes of its SHA-256 (reveals nothing of the key, the same on every replica). */
function keyIdOf(key: Uint8Array): Buffer {
  return createHash("sha256").update(key).digest().subarray(0, KEY_ID_BYTES);
}

/**
 * AES-256-GCM sealing of signing secrets at rest, in the format of the merchant service's signing
 * keys plus the sealing key's id: `2 | key id (8) | iv (12) | tag (16) | ciphertext`. The endpoint
 * id is authenticated as additional data, so a sealed secret copied onto another endpoint fails to
 * open instead of signing that endpoint's deliveries.
 *
 * It seals under one key (WEBHOOK_SECRET_ENCRYPTION_KEY) and opens under that one or any other it
 * is given (WEBHOOK_SECRET_DECRYPTION_KEYS), picking the key by the id a secret carries: that is
 * what lets the key be rotated with replicas on both sides of the switch, and the background
 * re-seal (SecretResealer) move every secret to the current key before the old one is removed.
 *
 * With a lone key there is nothing to choose, and it seals without an id (format 1): what a
 * release before key ids can open, so upgrading from one, with both releases' replicas running
 * during the rollout, fails no secret. Ids start with a rotation's first step, once every replica
 * runs a release that reads them.
 */
export class SecretBox {
  readonly #current: Buffer;
  readonly #currentId: Buffer;
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** Whether a rotation is under way (other keys given): secrets are then sealed with the key's id, and re-sealed. */
  readonly rotating: boolean;

  constructor(current: Uint8Array, others: readonly Uint8Array[] = []) {
    this.rotating = others.length > 0;
    for (const key of [current, ...others]) if (key.length !== 32) throw new Error("a secret sealing key must be 32 bytes");
    this.#current = Buffer.from(current);
    this.#currentId = keyIdOf(current);
    this.#keys = new Map([current, ...others].map((key) => [keyIdOf(key).toString("hex"), Buffer.from(key)]));
  }

  /** The first bytes of every secret sealed under the current key (format and key id): what the re-seal looks for. */
  get currentPrefix(): Buffer {
    return Buffer.concat([Buffer.of(NAMED_KEY_FORMAT), this.#currentId]);
  }

  /** Whether `sealed` is under the current key, so re-sealing it would change nothing. */
  isCurrent(sealed: Uint8Array): boolean {
    return Buffer.from(sealed).subarray(0, 1 + KEY_ID_BYTES).equals(this.currentPrefix);
  }

  seal(secret: string, endpointId: string): Uint8Array<ArrayBuffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#current, iv);
    cipher.setAAD(Buffer.from(endpointId, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    const prefix = this.rotating ? this.currentPrefix : Buffer.of(UNNAMED_KEY_FORMAT);
    return new Uint8Array(Buffer.concat([prefix, iv, cipher.getAuthTag(), ciphertext]));
  }

  open(sealed: Uint8Array, endpointId: string): string {
    const bytes = Buffer.from(sealed);
    if (bytes[0] === NAMED_KEY_FORMAT && bytes.length > 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES) {
      const key = this.#keys.get(bytes.subarray(1, 1 + KEY_ID_BYTES).toString("hex"));
      const opened = key && openWith(key, bytes.subarray(1 + KEY_ID_BYTES), endpointId);
      if (opened !== undefined) return opened;
    } else if (bytes[0] === UNNAMED_KEY_FORMAT && bytes.length > 1 + IV_BYTES + TAG_BYTES) {
      // Sealed before keys had ids: any of the keys may have sealed it (GCM's tag tells which).
      for (const key of this.#keys.values()) {
        const opened = openWith(key, bytes.subarray(1), endpointId);
        if (opened !== undefined) return opened;
      }
    } else {
      throw new Error("unknown sealed secret format");
    }
    throw new Error(`the secret of endpoint ${endpointId} cannot be opened with WEBHOOK_SECRET_ENCRYPTION_KEY or WEBHOOK_SECRET_DECRYPTION_KEYS`);
  }
}

/** `iv | tag | ciphertext` opened with `key`, or undefined when it was sealed under another key (or altered). */
function openWith(key: Buffer, body: Buffer, endpointId: string): string | undefined {
  const decipher = createDecipheriv("aes-256-gcm", key, body.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(endpointId, "utf8"));
  decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
