import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { servedFile, type ServedFile } from "./document";

/** Where scripts/build.ts copies the renderer beside the gateway bundle: the image has no node_modules. */
export const RENDERER_BESIDE_BUNDLE = fileURLToPath(new URL("../../dist/redoc.standalone.js", import.meta.url));
export const RENDERER_MODULE = "redoc/bundles/redoc.standalone.js";

/**
 * The bundle's only outside asset is the footer's Redocly logo (an <img> from cdn.redoc.ly). An
 * empty data: URL makes the image fail at once, and Redoc then hides it, so the page never contacts
 * another origin (the CSP would block it anyway).
 */
const OUTSIDE_ASSETS = ["https://cdn.redoc.ly/redoc/logo-mini.svg"];

function rendererPath(): string {
  try {
    return createRequire(import.meta.url).resolve(RENDERER_MODULE);
  } catch {
    if (existsSync(RENDERER_BESIDE_BUNDLE)) return RENDERER_BESIDE_BUNDLE;
    throw new Error(`Redoc's standalone bundle is missing: neither ${RENDERER_MODULE} nor ${RENDERER_BESIDE_BUNDLE} (run make build)`);
  }
}

/** Redoc's standalone bundle, read once at start, its outside assets removed. */
export function rendererScript(): ServedFile {
  let source = readFileSync(rendererPath(), "utf8");
  for (const url of OUTSIDE_ASSETS) source = source.replaceAll(url, "data:,");
  return servedFile(Buffer.from(source));
}
