/**
 * Regenerates every Prisma client in the repository (each service's and the events test
 * fixture's) from its prisma.config.ts: `tsx scripts/prisma-generate.ts`. Quiet when all succeed;
 * on a failure prints that schema's Prisma output and exits 1.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { prismaConfigs } from "../packages/testing/src/prisma-configs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PRISMA_CLI = path.join(path.dirname(createRequire(import.meta.url).resolve("prisma/package.json")), "build", "index.js");

export class PrismaGenerateError extends Error {
  override readonly name = "PrismaGenerateError";
}

/** Runs `prisma generate --config <config>` for each config, in parallel; rejects with the output of those that failed. */
export async function generatePrismaClients(configs: string[] = prismaConfigs()): Promise<void> {
  const results = await Promise.all(configs.map(async (config) => ({ config, ...(await generate(config)) })));
  const failed = results.filter((result) => result.code !== 0);
  if (failed.length > 0) {
    const details = failed.map((result) => `--- prisma generate --config ${result.config} (exit ${result.code})\n${result.output}`);
    throw new PrismaGenerateError(`prisma generate failed for ${failed.length} schema(s):\n${details.join("\n")}`);
  }
}

function generate(config: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PRISMA_CLI, "generate", "--config", config], {
      cwd: ROOT,
      env: {
        ...process.env,
        // Prisma 7 still looks for its native schema engine before generating and would try to
        // download it (impossible offline); any existing file satisfies the lookup and generate
        // never runs it. With the pg driver adapter the client needs no native engine at all.
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
        // No update check or telemetry: offline they only add timeouts.
        CHECKPOINT_DISABLE: "1",
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const configs = prismaConfigs();
  await generatePrismaClients(configs).then(
    () => console.log(`Generated ${configs.length} Prisma clients.`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
