import { createHash, type Hash } from "node:crypto";
import { imageSize } from "image-size";
import type { MediaContentType, VerifiedContent } from "./media-asset";

/**
 * How much of an object's start is kept for the checks: enough for every signature and for an
 * image's header with its dimensions (a JPEG's SOF marker comes after its EXIF segments, at most
 * 64 KiB each). The rest only passes through the hash and the counter.
 */
const HEAD_BYTES = 1024 * 1024;
/** The end is kept too: a complete file ends as its format says (IEND, EOI, %%EOF). */
const TAIL_BYTES = 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_END = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/** The type an object's first bytes announce (its magic number), or null for none we accept. */
export function signatureOf(head: Buffer): MediaContentType | null {
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  if (head.toString("latin1", 0, 5) === "%PDF-") return "application/pdf";
  return null;
}

/** Whether the last bytes close the file as its format requires: a truncated upload does not. */
function isComplete(type: MediaContentType, tail: Buffer, head: Buffer, size: number): boolean {
  switch (type) {
    case "image/png":
      return tail.subarray(-12).subarray(4).equals(PNG_END);
    case "image/jpeg":
      return tail.includes(Buffer.from([0xff, 0xd9]));
    case "image/webp":
      return head.readUInt32LE(4) + 8 === size;
    case "application/pdf":
      return tail.includes("%%EOF", 0, "latin1");
  }
}

export type ContentVerdict = { readonly ok: true; readonly content: VerifiedContent } | { readonly ok: false; readonly reason: string };

/**
 * Fed an object's bytes as they stream from storage, in bounded memory (HEAD_BYTES + TAIL_BYTES),
 * then judges them against the declaration: the signature must be the declared type's, the size
 * exact, the file complete, and an image's header must decode to positive dimensions of the same
 * format (image-size reads them from the bytes). The reason is for logs, never for the merchant.
 */
export class ContentInspection {
  private readonly hash: Hash = createHash("sha256");
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  private size = 0;

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.hash.update(bytes);
    this.size += bytes.length;
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, bytes.subarray(0, HEAD_BYTES - this.head.length)]);
    this.tail = Buffer.concat([this.tail, bytes]).subarray(-TAIL_BYTES);
  }

  /** The bytes read so far; the caller stops reading past the declared size. */
  get bytesRead(): number {
    return this.size;
  }

  verdict(declared: { contentType: MediaContentType; sizeBytes: number }): ContentVerdict {
    if (this.size !== declared.sizeBytes) return { ok: false, reason: `size ${this.size} is not the declared ${declared.sizeBytes}` };
    const signature = signatureOf(this.head);
    if (signature !== declared.contentType) return { ok: false, reason: `the bytes are ${signature ?? "of no accepted type"}, declared ${declared.contentType}` };
    if (!isComplete(signature, this.tail, this.head, this.size)) return { ok: false, reason: `the ${signature} is truncated` };
    const sha256 = new Uint8Array(this.hash.digest());
    if (signature === "application/pdf") return { ok: true, content: { sha256, width: null, height: null } };
    try {
      const { width, height, type } = imageSize(this.head);
      const expected = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" }[signature];
      if (type !== expected || !(width > 0 && height > 0)) return { ok: false, reason: `the image header decodes as ${type} ${width}x${height}` };
      return { ok: true, content: { sha256, width, height } };
    } catch (error) {
      return { ok: false, reason: `the image does not decode: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
