import { createHash } from "node:crypto";

/**
 * Checksums exactly as Prisma's schema engine computes and compares them
 * (prisma-engines schema-connector/src/checksum.rs): SHA-256 of the migration script's UTF-8
 * text, lower-case hex, two digits per byte.
 */
export function migrationChecksum(script: string): string {
  return hexDigits(sha256(script), 2);
}

/**
 * Whether `script` matches a checksum stored in `_prisma_migrations`, with Prisma's tolerances so
 * both tools agree on what "modified" means: line endings may differ (git on Windows rewrites
 * LF to CRLF), and very old Prisma versions stored checksums without zero padding.
 */
export function checksumMatches(script: string, storedChecksum: string): boolean {
  const padded = storedChecksum === "" || storedChecksum.length === 64;
  const variants = [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")];
  return variants.some((variant) => hexDigits(sha256(variant), padded ? 2 : 1) === storedChecksum);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function hexDigits(bytes: Buffer, minWidth: 1 | 2): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(minWidth, "0")).join("");
}
