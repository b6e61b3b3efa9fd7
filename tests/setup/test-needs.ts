/**
 * What one process's tests need of the shared infrastructure, for `make test SERVICE=<name>`: every
 * unit and integration test gets PostgreSQL, but only the tests that ask for the broker
 * (`inject("kafkaBrokers")`) get Kafka. Read from the tests themselves, so the answer cannot drift
 * from them: a test that starts asking for Kafka makes its folder need it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ASKS_FOR_KAFKA = /inject\(\s*["']kafkaBrokers["']\s*\)/;
const ASKS_FOR_S3 = /inject\(\s*["']s3["']\s*\)/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "generated") return [];
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourcesUnder(file) : entry.name.endsWith(".ts") ? [file] : [];
  });
}

/** Whether any test or test helper under `dir` asks for the Kafka broker. */
export function needsKafka(dir: string): boolean {
  return sourcesUnder(dir).some((file) => ASKS_FOR_KAFKA.test(readFileSync(file, "utf8")));
}

/** Whether any test or test helper under `dir` asks for the S3 server (`inject("s3")`). */
export function needsS3(dir: string): boolean {
  return sourcesUnder(dir).some((file) => ASKS_FOR_S3.test(readFileSync(file, "utf8")));
}
