/**
 * `make settings-tables` rewrites the settings table of each process's README (gateway/ and every
 * services/<name>/) from its config schema; `--check` (run by `make check`) only reports the
 * READMEs whose table is stale, and a setting with no description, and fails.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildTargets } from "../packages/testing/src/bundles";
import { renderTable, withTable } from "./settings/readme-table";
import { settingsOf } from "./settings/settings-of";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The processes' folders, discovered as `make build` discovers them. */
export const processDirs = (root: string = ROOT): string[] =>
  buildTargets(root).filter((t) => t.name !== "migrate-cli").map((t) => path.dirname(path.dirname(t.entry)));

export interface TableState {
  readonly readme: string;
  readonly current: string;
  readonly generated: string;
  readonly undescribed: string[];
}

export async function tableStates(root: string = ROOT): Promise<TableState[]> {
  return Promise.all(
    processDirs(root).map(async (dir) => {
      const readme = path.join(dir, "README.md");
      const current = readFileSync(path.join(root, readme), "utf8");
      const settings = await settingsOf(root, dir);
      const undescribed = settings.filter((s) => s.meaning === "").map((s) => s.name);
      return { readme, current, generated: withTable(current, renderTable(settings), readme), undescribed };
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const check = process.argv.includes("--check");
  const states = await tableStates();
  const undescribed = states.flatMap((s) => s.undescribed.map((name) => `${path.dirname(s.readme)}: ${name}`));
  if (undescribed.length > 0) {
    console.error(`settings without a description (add a comment above the key in src/config.ts):\n  ${undescribed.join("\n  ")}`);
    process.exit(1);
  }
  const stale = states.filter((s) => s.current !== s.generated);
  if (check) {
    if (stale.length > 0) {
      console.error(`stale settings tables: ${stale.map((s) => s.readme).join(", ")}; run make settings-tables and commit`);
      process.exit(1);
    }
    console.log("every README's settings table is fresh");
  } else {
    for (const s of stale) writeFileSync(path.join(ROOT, s.readme), s.generated);
    console.log(stale.length > 0 ? `rewrote ${stale.map((s) => s.readme).join(", ")}` : "every README's settings table was fresh");
  }
}
