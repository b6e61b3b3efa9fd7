/**
 * A scripted stand-in for the gateway on port 0: each request to a path takes the next scripted
 * answer for that path, and every request is recorded for the test to inspect.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../src/index";

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Recorded {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeApi {
  baseUrl: string;
  requests: Recorded[];
  /** Answers for `path` (query excluded), in order; the last one repeats. */
  script(path: string, ...answers: Answer[]): void;
  close(): Promise<void>;
}

export const problem = (status: number, code: string, extra: Record<string, unknown> = {}): Answer["body"] => ({
  type: `https://api.tawsil.sa/problems/${code.toLowerCase().replaceAll("_", "-")}`,
  title: code,
  status,
  code,
  timestamp: "2026-05-04T09:15:00.000Z",
  correlationId: "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
  requestId: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9",
  ...extra,
});

export const problemAnswer = (status: number, code: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Answer => ({
  status,
  headers: { "content-type": "application/problem+json", ...headers },
  body: problem(status, code, extra),
});

export const tokenAnswer = (token: string): Answer => ({ status: 200, body: { access_token: token, token_type: "Bearer", expires_in: 3600, scope: "shipments:read" } });

export async function startFakeApi(): Promise<FakeApi> {
  const scripts = new Map<string, Answer[]>();
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const path = url.pathname;
      requests.push({ method: req.method ?? "", path, query: Object.fromEntries(url.searchParams), headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const queue = scripts.get(path) ?? [];
      const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? { status: 404, body: { unscripted: path } };
      const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (path, ...answers) => void scripts.set(path, answers),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A clock that never waits: sleeping advances its time and records the wait. */
export function fakeClock(random: () => number = () => 0.5): Clock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    random,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}
