import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jpeg, pdfHtmlPolyglot, png } from "@tawsil/testing";
import { ContentInspection, signatureOf } from "./media-content";
import type { MediaContentType } from "./media-asset";

/** Feeds `bytes` in chunks of `size`, as storage streams them. */
function inspect(bytes: Buffer, declared: { contentType: MediaContentType; sizeBytes?: number }, size = 7) {
  const inspection = new ContentInspection();
  for (let i = 0; i < bytes.length; i += size) inspection.push(bytes.subarray(i, i + size));
  return inspection.verdict({ contentType: declared.contentType, sizeBytes: declared.sizeBytes ?? bytes.length });
}

describe("content inspection", () => {
  it("accepts a PNG with the dimensions of its own header and the SHA-256 of every byte", () => {
    const bytes = png(9, 4);
    const verdict = inspect(bytes, { contentType: "image/png" });
    expect(verdict).toEqual({ ok: true, content: { sha256: new Uint8Array(createHash("sha256").update(bytes).digest()), width: 9, height: 4 } });
  });

  it("reads a JPEG's dimensions from its frame header", () => {
    expect(inspect(jpeg(640, 480), { contentType: "image/jpeg" })).toMatchObject({ ok: true, content: { width: 640, height: 480 } });
  });

  it("takes a PDF by its signature and end, without dimensions", () => {
    expect(inspect(pdfHtmlPolyglot(), { contentType: "application/pdf" })).toMatchObject({ ok: true, content: { width: null, height: null } });
  });

  it("refuses another type than declared, a wrong size, a truncated file and an image whose header does not decode", () => {
    const bytes = png(3, 3);
    expect(inspect(bytes, { contentType: "image/jpeg" }).ok).toBe(false);
    expect(inspect(bytes, { contentType: "image/png", sizeBytes: bytes.length + 1 }).ok).toBe(false);
    expect(inspect(bytes.subarray(0, bytes.length - 4), { contentType: "image/png" }).ok).toBe(false);
    const noFrame = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x04, 0x41, 0x41]), Buffer.from([0xff, 0xd9])]);
    expect(inspect(noFrame, { contentType: "image/jpeg" }).ok).toBe(false);
    expect(inspect(Buffer.from("<html>not a pdf</html>%%EOF"), { contentType: "application/pdf" }).ok).toBe(false);
  });

  it("names the type a file's first bytes announce, or none", () => {
    expect(signatureOf(png(1, 1))).toBe("image/png");
    expect(signatureOf(Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1"))).toBe("image/webp");
    expect(signatureOf(Buffer.from("GIF89a"))).toBeNull();
  });
});
