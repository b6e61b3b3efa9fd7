import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM sealing of signing secrets at rest, under WEBHOOK_SECRET_ENCRYPTION_KEY, in the format
 * of the merchant service's signing keys: `version | iv (12) | tag (16) | ciphertext`. The endpoint
 * id is authenticated as additional data, so a sealed secret copied onto another endpoint fails to
 * open instead of signing that endpoint's deliveries.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error("WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes");
    this.#key = Buffer.from(key);
  }

  seal(secret: string, endpointId: string): Uint8Array<ArrayBuffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(endpointId, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return new Uint8Array(Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]));
  }

  open(sealed: Uint8Array, endpointId: string): string {
    const bytes = Buffer.from(sealed);
    if (bytes[0] !== FORMAT_VERSION || bytes.length <= 1 + IV_BYTES + TAG_BYTES) throw new Error("unknown sealed secret format");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId, "utf8"));
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new Error(`the secret of endpoint ${endpointId} cannot be opened with this WEBHOOK_SECRET_ENCRYPTION_KEY`);
    }
  }
}
