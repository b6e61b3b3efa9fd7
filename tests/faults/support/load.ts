/**
 * Creates through the gateway, as a merchant's client would send them under a fault: paced, each
 * with its own Idempotency-Key and reference, answers tallied by status. A create that got a 5xx,
 * a timeout or a broken connection is retried afterwards with the same key and body until it is
 * answered with a 2xx (or a final 4xx, which the ledger reports): at-least-once from the client's
 * side, so the server's idempotency is what keeps it exactly once.
 */
import { randomUUID } from "node:crypto";

export interface CreateAttempt {
  readonly key: string;
  readonly reference: string;
  readonly body: string;
  /** HTTP status of the first answer, or "timeout" / "network". */
  first: number | "timeout" | "network";
  /** The shipment id once a 2xx answered (first try or retries). */
  id?: string;
  /** The final non-2xx answer of the retries, when they ended without one. */
  finalRefusal?: number | "timeout" | "network";
  retries: number;
}

export interface Client {
  readonly gatewayUrl: string;
  readonly token: string;
  readonly savedLocation: string;
  readonly timeoutMs: number;
}

export async function sendCreate(client: Client, attempt: Pick<CreateAttempt, "key" | "body">): Promise<{ status: number | "timeout" | "network"; id?: string; retryAfterMs?: number }> {
  try {
    const res = await fetch(`${client.gatewayUrl}/v2/external/shipments`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.token}`, "content-type": "application/json", "idempotency-key": attempt.key },
      body: attempt.body,
      signal: AbortSignal.timeout(client.timeoutMs),
    });
    const text = await res.text();
    const id = res.status < 300 ? (JSON.parse(text) as { id: string }).id : undefined;
    const retryAfter = Number(res.headers.get("retry-after") ?? "");
    return { status: res.status, ...(id ? { id } : {}), ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}) };
  } catch (error) {
    return { status: (error as Error).name === "TimeoutError" ? "timeout" : "network" };
  }
}

export function newCreate(client: Client, label: string): CreateAttempt {
  const reference = `F-${label}-${randomUUID().slice(0, 12)}`;
  const body = JSON.stringify({
    reference,
    pickup: { savedLocationCode: client.savedLocation },
    destination: { latitude: 24.774265, longitude: 46.738586 },
    recipient: { name: "Huda", mobile: "0512345600" },
  });
  return { key: randomUUID(), reference, body, first: 0, retries: 0 };
}

/** `count` creates started at `ratePerSecond`, at most `concurrency` in flight; resolves when all answered. */
export async function burst(client: Client, label: string, opts: { count: number; ratePerSecond: number; concurrency: number }): Promise<CreateAttempt[]> {
  const attempts: CreateAttempt[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  for (let i = 0; i < opts.count; i++) {
    const due = started + (i * 1000) / opts.ratePerSecond;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    while (inFlight.size >= opts.concurrency) await Promise.race(inFlight);
    const attempt = newCreate(client, label);
    attempts.push(attempt);
    const p: Promise<void> = sendCreate(client, attempt).then((answer) => {
      attempt.first = answer.status;
      if (answer.id) attempt.id = answer.id;
      inFlight.delete(p);
    });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return attempts;
}

/** Retries every create that has no 2xx yet, with its own key and body, until answered 2xx or refused for good. */
export async function completeRetries(client: Client, attempts: readonly CreateAttempt[], deadlineMs = 120_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  await Promise.all(
    attempts
      .filter((a) => !a.id && retryable(a.first))
      .map(async (attempt) => {
        while (Date.now() < deadline) {
          attempt.retries++;
          const answer = await sendCreate(client, attempt);
          if (answer.id) {
            attempt.id = answer.id;
            delete attempt.finalRefusal;
            return;
          }
          attempt.finalRefusal = answer.status;
          // 409 with Retry-After is IDEMPOTENCY_KEY_IN_USE (the first try still runs); any other 409 is final.
          if (!retryable(answer.status) && !(answer.status === 409 && answer.retryAfterMs)) return;
          await new Promise((r) => setTimeout(r, answer.retryAfterMs ?? 1000));
        }
      }),
  );
}

/** What a client retries: server errors, timeouts, broken connections and 429. */
export function retryable(status: CreateAttempt["first"]): boolean {
  return status === "timeout" || status === "network" || status === 429 || (typeof status === "number" && status >= 500);
}
