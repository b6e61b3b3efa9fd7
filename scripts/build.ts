/**
 * `make build`: compiles every process of the mesh into one JavaScript bundle each, which `make dev`,
 * the end-to-end tests and the image run with `node --enable-source-maps --max-semi-space-size=4 dist/main.mjs`.
 *
 * Processes are discovered, not listed: `gateway/src/main.ts` and every `services/<name>/src/main.ts`
 * become `<dir>/dist/main.mjs`; the migration runner `packages/db/src/migrate-cli.ts` becomes
 * `packages/db/dist/migrate-cli.mjs`. Each bundle holds our workspace packages and their third-party
 * dependencies, so it runs with no node_modules beside it: the image needs no install at all, and
 * no process depends on which packages pnpm happened to link next to it.
 */
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RawSourceMap } from "source-map-js";
import { buildTargets, depfilePath, staleTargets, type BuildTarget } from "../packages/testing/src/bundles";
import { trimLibraryMappings } from "./source-map-trim";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundled ESM has no `require`, `__filename` or `__dirname`, yet the CommonJS dependencies we bundle
 * (pg, kafkajs, pino, fastify...) call `require("node:...")` for builtins: give them Node's own.
 */
const BANNER = [
  'import { createRequire as __tawsilCreateRequire } from "node:module";',
  'import { fileURLToPath as __tawsilFileURLToPath } from "node:url";',
  "const require = __tawsilCreateRequire(import.meta.url);",
  "const __filename = __tawsilFileURLToPath(import.meta.url);",
  'const __dirname = __tawsilFileURLToPath(new URL(".", import.meta.url));',
].join("\n");

/**
 * In our own sources, `import.meta.url` keeps meaning the source file's address, as under tsx: it
 * becomes that file's URL relative to the bundle. So pricing's `new URL("../../data", import.meta.url)`
 * still finds services/pricing/data, from dist/ in a checkout or in the image alike.
 */
function sourceImportMetaUrl(root: string): Plugin {
  return {
    name: "source-import-meta-url",
    setup(pluginBuild) {
      const outdir = path.dirname(pluginBuild.initialOptions.outfile ?? "");
      pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`) || !args.path.startsWith(root)) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return { contents: source, loader: "ts" };
        const relative = path.relative(outdir, args.path).split(path.sep).join("/");
        return { contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: "ts" };
      });
    },
  };
}

export function esbuildOptions(target: BuildTarget, root: string = ROOT): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: [path.join(root, target.entry)],
    outfile: path.join(root, target.outfile),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Stack traces point at the TypeScript (node --enable-source-maps). The sources themselves are
    // left out of the map: traces need only the mappings, and a smaller map costs each process less
    // memory; buildAll then trims the libraries' mappings to one per line (./source-map-trim.ts).
    sourcemap: "linked",
    sourcesContent: false,
    // Names stay as written: errors and logs print class names (DomainError subclasses, Prisma's).
    keepNames: true,
    // Workspace packages that ship built JavaScript (the SDK, which the sandbox fleet drives with)
    // are bundled from their TypeScript sources, as tsc and vitest resolve them: no prior build.
    conditions: ["@tawsil/source"],
    // pg loads pg-native only when asked for it (we never do); it is not installed.
    external: ["pg-native"],
    banner: { js: BANNER },
    plugins: [sourceImportMetaUrl(root)],
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    // Whitespace and comments out, names kept: a third smaller bundle that V8 parses faster, and an
    // ASCII-only one. A single character above U+00FF in a kept comment (an em dash in a library's
    // prose) made V8 hold the whole multi-MiB source as a two-byte string in every process.
    minifyWhitespace: true,
  };
}

/**
 * What a bundle is made of besides third-party code: our sources it imports (generated Prisma clients
 * included), this script, and the install (third-party code changes only through it).
 */
const ALWAYS_INPUTS = ["scripts/build.ts", "scripts/source-map-trim.ts", "node_modules/.modules.yaml"];

/**
 * `<outfile>.d`, a makefile the Makefile includes: the bundle depends on each of its inputs, and
 * each input has an empty rule (as `gcc -MP` writes) so that a deleted source triggers a rebuild
 * rather than a "no rule to make target" error.
 */
function writeDepfile(target: BuildTarget, metafile: Metafile, root: string): string[] {
  const inputs = [...new Set([...ALWAYS_INPUTS, ...Object.keys(metafile.inputs).filter((input) => !input.includes("node_modules/"))])]
    .filter((input) => /^[\w@.+/-]+$/.test(input)) // nothing make would misread (spaces, colons)
    .sort();
  const lines = [`${target.outfile}: \\`, ...inputs.map((input) => `  ${input} \\`), "", ...inputs.map((input) => `${input}:`), ""];
  writeFileSync(path.join(root, depfilePath(target)), lines.join("\n"));
  return inputs;
}

/**
 * Files a process serves that live in an installed package, copied beside its bundle: the image
 * has no node_modules. The gateway's /docs serves Redoc's standalone bundle.
 */
const BESIDE_BUNDLE: Record<string, { module: string; file: string }[]> = {
  gateway: [{ module: "redoc/bundles/redoc.standalone.js", file: "gateway/dist/redoc.standalone.js" }],
};

function copyBesideBundle(target: BuildTarget, root: string): void {
  const require = createRequire(path.join(root, path.dirname(path.dirname(target.entry)), "package.json"));
  for (const { module, file } of BESIDE_BUNDLE[target.name] ?? []) copyFileSync(require.resolve(module), path.join(root, file));
}

/** Builds the given targets in parallel (by default those that are stale); returns the bundles' sizes for the log. */
export async function buildAll(targets: BuildTarget[] = staleTargets(), root: string = ROOT): Promise<{ target: BuildTarget; bytes: number }[]> {
  return Promise.all(
    targets.map(async (target) => {
      const result = await build(esbuildOptions(target, root));
      const map = path.join(root, `${target.outfile}.map`);
      writeFileSync(map, JSON.stringify(trimLibraryMappings(JSON.parse(readFileSync(map, "utf8")) as RawSourceMap)));
      writeDepfile(target, result.metafile!, root);
      copyBesideBundle(target, root);
      return { target, bytes: outputBytes(result.metafile) };
    }),
  );
}

function outputBytes(metafile: Metafile | undefined): number {
  return Object.entries(metafile?.outputs ?? {})
    .filter(([file]) => file.endsWith(".mjs"))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // `--all` rebuilds every bundle (the image does); by default only the stale ones.
  const started = Date.now();
  const built = await buildAll(process.argv.includes("--all") ? buildTargets() : staleTargets());
  const sizes = built.map(({ target, bytes }) => `${target.name} ${(bytes / 1024 / 1024).toFixed(1)} MiB`).join(", ");
  console.log(built.length === 0 ? "every bundle is up to date" : `built ${built.length} bundle(s) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${sizes}`);
}
