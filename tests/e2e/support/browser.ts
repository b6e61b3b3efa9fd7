/**
 * Debian's headless Chromium (installed by `make browser`), driven by playwright-core, which
 * downloads no browser of its own. Each launch gets a fresh profile, removed on close.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** Git-ignored: screenshots kept as test artefacts. */
export const ARTEFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../.artefacts");

export interface HeadlessBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<HeadlessBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run 'make browser' (make test does)`);
  const profile = mkdtempSync(path.join(os.tmpdir(), "tawsil-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artefactPath(...parts: string[]): string {
  const file = path.join(ARTEFACTS, ...parts);
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}
