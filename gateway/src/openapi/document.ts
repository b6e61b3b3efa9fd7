import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

/** The OpenAPI document: the one description of what the gateway promises (kept in data/, which the image carries). */
export const OPENAPI_YAML = fileURLToPath(new URL("../../data/openapi.yaml", import.meta.url));

export interface ServedFile {
  readonly body: Buffer;
  /** Strong validator of the bytes: a changed document gets a new ETag. */
  readonly etag: string;
}

export function servedFile(body: Buffer): ServedFile {
  return { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"` };
}

/** The document as an object, parsed from the YAML (the tests validate responses against the same object). */
export function readOpenApiDocument(file: string = OPENAPI_YAML): Record<string, unknown> {
  return parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

/** GET /v2/openapi.json's body: converted once at start, never per request. */
export function openApiJson(file: string = OPENAPI_YAML): ServedFile {
  return servedFile(Buffer.from(JSON.stringify(readOpenApiDocument(file))));
}
