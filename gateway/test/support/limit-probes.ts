/**
 * Requests that spend one limit of decisions.md section 14 each, sent one after another and
 * alternating between gateway replicas, for the tests that show a limit holds for the deployment
 * (gateway/test/shared-limits.int.test.ts in-process, tests/e2e/replicas.e2e.test.ts on a mesh).
 */
import { requestToken } from "./token-request";

/** One request to one replica's base URL. */
export type Probe = (base: string, i: number) => Promise<Response>;

/** The statuses of `count` probes, the i-th sent to `bases[i % bases.length]` once the one before was answered; `check` sees each answer first. */
export async function alternate(bases: readonly string[], count: number, probe: Probe, check?: (res: Response) => void): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await probe(bases[i % bases.length]!, i);
    check?.(res);
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  return statuses;
}

/** `count` probes as `alternate` sends them, in `sequences` sequences at once: less time for a bucket to refill on a loaded machine. */
export async function alternateAtOnce(bases: readonly string[], count: number, probe: Probe, sequences = 4): Promise<number[]> {
  const each = Math.ceil(count / sequences);
  return (await Promise.all(Array.from({ length: sequences }, (_, k) => alternate(bases, each, (base, i) => probe(base, k * each + i))))).flat();
}

export const countOf = (statuses: readonly number[], status: number): number => statuses.filter((s) => s === status).length;

/** A request of `token`'s client to `path` (the per-client bucket). */
export const asClient =
  (token: string, path: string): Probe =>
  (base) =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

/**
 * A token request of a well-formed client id without grant_type: counted by the per-client-id
 * limit, then refused with invalid_request (400) before the merchant service is asked or a
 * failure is recorded.
 */
export const tokenRequestOf =
  (clientId: string): Probe =>
  (base) =>
    requestToken(base, {}, { clientId, clientSecret: "tws_sk_whatever" });

/** A failed client authentication (a malformed client id fails at the gateway), counted toward the lockout: 401. */
export const failedAuthenticationOf =
  (clientId: string): Probe =>
  (base) =>
    requestToken(base, { grant_type: "client_credentials" }, { clientId, clientSecret: "wrong" });

/** A token request from `address` (X-Forwarded-For, from a trusted proxy) that is not a form: counted by the address limit alone, then 400. */
export const tokenRequestFrom =
  (address: string): Probe =>
  (base) =>
    fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": address }, body: "{}" });

/** A public tracking read of `code(i)`, from `address` when given (X-Forwarded-For, from a trusted proxy). */
export const trackingRead =
  (code: (i: number) => string, address?: string): Probe =>
  (base, i) =>
    fetch(`${base}/v2/public/tracking/${code(i)}`, { headers: address ? { "x-forwarded-for": address } : {} });

/** Another code for each read from `address`, none of them known. */
export const codesFrom = (address: string) => (i: number) => `${address.replaceAll(".", "")}${String(i).padStart(4, "0")}`.padEnd(43, "x");
