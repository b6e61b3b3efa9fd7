/**
 * What a failed test that ran processes leaves behind to explain itself (issue 26): each
 * process's log under `.artefacts/<suite>/<test>/<process>.log`, kept after the run, and, printed
 * with the failure, the log lines of the process that answered the failing request. Every error
 * answer of a gateway carries `X-Request-Id`; the gateway passes it to the services it calls and
 * every process logs it with an error, so one id finds the lines in whichever process answered.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface ErrorAnswer {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly requestId: string;
}

const answers: ErrorAnswer[] = [];
const watchedOrigins = new Set<string>();
const logDirs = new Set<string>();
const cleared = new Set<string>();
/** Bounded: a test under load (the fault suite) may be refused thousands of times. */
const MAX_ANSWERS = 2_000;

/**
 * `.artefacts/<suite>/<test>/` for the test file running (`tests/e2e/webhook.e2e.test.ts` is
 * suite `e2e`, test `webhook.e2e`), emptied once per run of that file so its logs are this run's.
 */
export function artefactDirFor(testFile: string | undefined): string {
  const file = testFile ?? "unknown.test.ts";
  const suite = path.basename(path.dirname(file));
  const test = path.basename(file).replace(/\.test\.[cm]?[jt]s$/, "");
  const dir = path.join(ROOT, ".artefacts", suite, test);
  if (!cleared.has(dir)) {
    cleared.add(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Process logs (`<name>.log` files) a failure report searches. */
export function watchProcessLogs(logDir: string): void {
  logDirs.add(logDir);
}

/**
 * Records every error answer (status >= 400) that `origin` sends to this test process's fetch,
 * by status and request id. Installs one wrapper around the current global fetch.
 */
export function recordErrorAnswersFrom(origin: string): void {
  const first = watchedOrigins.size === 0;
  watchedOrigins.add(new URL(origin).origin);
  if (!first) return;
  const wrapped = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await wrapped(input, init);
    if (response.status >= 400) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const requestId = response.headers.get("x-request-id");
      if (requestId && watchedOrigins.has(url.origin) && answers.length < MAX_ANSWERS) {
        answers.push({ status: response.status, method: (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase(), path: url.pathname, requestId });
      }
    }
    return response;
  };
}

/** Forgets the answers recorded so far (each test reports its own). */
export function forgetErrorAnswers(): void {
  answers.length = 0;
}

/**
 * The answers most likely to explain a failure: a 500 (our bug) before any other 5xx, before a
 * 4xx; the latest first within each. At most `max`, one per distinct status.
 */
function suspects(max: number): ErrorAnswer[] {
  const rank = (a: ErrorAnswer) => (a.status === 500 ? 0 : a.status >= 500 ? 1 : 2);
  const ordered = answers.map((a, i) => ({ a, i })).sort((x, y) => rank(x.a) - rank(y.a) || y.i - x.i);
  const seen = new Set<number>();
  const picked: ErrorAnswer[] = [];
  for (const { a } of ordered) {
    if (seen.has(a.status)) continue;
    seen.add(a.status);
    picked.push(a);
    if (picked.length === max) break;
  }
  return picked;
}

/**
 * For each suspect answer, every process whose log names its request id: the lines that name it,
 * then the last `tail` lines of that log. Empty when no error answer was recorded.
 */
export function failureReport(opts: { maxAnswers?: number; tail?: number } = {}): string {
  const tail = opts.tail ?? 25;
  const out: string[] = [];
  for (const answer of suspects(opts.maxAnswers ?? 3)) {
    out.push(`── ${answer.method} ${answer.path} answered ${answer.status}, X-Request-Id ${answer.requestId}`);
    let found = false;
    for (const dir of logDirs) {
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".log")).sort()) {
        const lines = readFileSync(path.join(dir, file), "utf8").split("\n").filter(Boolean);
        const naming = lines.filter((line) => line.includes(answer.requestId));
        if (naming.length === 0) continue;
        found = true;
        const logPath = path.relative(ROOT, path.join(dir, file));
        out.push(`   ${file.replace(/\.log$/, "")} (${logPath}): ${naming.length} line(s) name it`, ...naming.slice(-5).map((l) => `   > ${l}`));
        out.push(`   last ${Math.min(tail, lines.length)} lines of ${logPath}:`, ...lines.slice(-tail).map((l) => `   | ${l}`));
      }
    }
    if (!found) out.push(`   no process log names it (logs in ${[...logDirs].map((d) => path.relative(ROOT, d)).join(", ") || "none watched"})`);
  }
  return out.join("\n");
}
