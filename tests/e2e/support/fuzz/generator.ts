/**
 * Requests generated from the OpenAPI document: for each operation a valid request built from the
 * document's examples and the fuzz merchant's data, then one mutation of its body, headers, path,
 * query or method. Deterministic for a seed.
 */
import { randomUUID } from "node:crypto";
import { type BodyMutation, mutateBody } from "./body-mutations";
import type { Operation } from "./operations";
import type { Random } from "./random";

export interface FuzzContext {
  /** The fuzz merchant's tokens: all scopes, read only; and another merchant's. */
  token: string;
  readOnlyToken: string;
  otherToken: string;
  clientId: string;
  clientSecret: string;
  savedLocation: string;
  /** A cancellable shipment of the fuzz merchant, one it cancelled, and another merchant's. */
  targetShipment: string;
  cancelledShipment: string;
  foreignShipment: string;
  /** A media asset of the fuzz merchant waiting for its bytes, and another merchant's. */
  mediaAsset: string;
  foreignMediaAsset: string;
  trackingCode: string;
  /** A real next-page cursor of the fuzz merchant's list (limit=1). */
  cursor: string;
  /** The webhook endpoint's current version, when one exists. */
  webhookVersion: () => number | undefined;
  /** A registered driver's token (the driver routes), off shift with no offer and no job. */
  driverToken: string;
}

export interface FuzzRequest {
  operation: string;
  kind: string;
  change: string;
  method: string;
  path: string;
  /** name, value pairs: a name may repeat. */
  headers: [string, string][];
  body: Buffer | undefined;
  mutating: boolean;
}

const BODY_KINDS: BodyMutation[] = ["valid", "boundary", "wrong-type", "missing-field", "extra-field", "unicode", "huge-string"];
const RAW_BODY_KINDS = ["bad-json", "bad-utf8", "content-type"] as const;
const HEADER_KINDS = ["accept-language", "tracing-headers", "duplicate-header", "huge-header", "auth"] as const;

const BAD_JSON = ["{", '{"a":}', "[1,2", "null", "[]", '"text"', "123", "", '{"a":1}{"b":2}', '{"a":1,}', "{'a':1}", "{\"a\":NaN}", `${"[".repeat(5000)}${"]".repeat(5000)}`, '{"a":"\\uZZZZ"}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'];
const BAD_UTF8 = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x00]];
const CONTENT_TYPES = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/json; charset=latin1", "application/JSON", "application/json;charset=utf-16", "application/problem+json", "application/merge-patch+json", "*/*", "application/json, text/plain", "application/vnd.api+json", "json", "application/json; boundary=\u00ff"];
const LANGUAGES = ["ar", "en", "fr", "ar-SA,ar;q=0.9,en;q=0.8", "*", "", "x".repeat(64), "x".repeat(65), "a".repeat(5000), "ar;q=abc", "en-US;q=0", ",,,", "fr-\u00e9", "ar;q=2", "EN", "ar-", ";", "zh-Hant-TW-x-private"];
const IDEMPOTENCY_KEYS = ["short", "x".repeat(15), "x".repeat(16), "k".repeat(128), "k".repeat(129), "has space inside the key", "tab\tinside-the-key0", "\u00e9".repeat(20), "\u007f".repeat(20), "", "ðŸ˜€ðŸ˜€ðŸ˜€ðŸ˜€ðŸ˜€ðŸ˜€"];
const CORRELATION_IDS = ["not-a-uuid", "", "6F1D2C3B-4A5E-4F60-8A7B-9C0D1E2F3A4B", "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b", "x".repeat(1000), "00000000-0000-0000-0000-000000000000"];
const TRACEPARENTS = ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-0000000000000000-00", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "garbage", "", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"];
const IF_MATCH = ['"0"', '"999999"', "W/\"1\"", "*", '"abc"', '"-1"', `"${"9".repeat(30)}"`, '""', "1", '"1", "2"', '"1.5"', '"1e3"'];
const BAD_IDS = ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "%00", "%ff", "%E2%80%AE", "..%2F..%2Fetc%2Fpasswd", "x".repeat(2000), "%7B0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b%7D", "%200192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b", "0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b%00", "0192f5a01c2d7e3f8a4b5c6d7e8f9a0b", "%D8%B4%D8%AD%D9%86%D8%A9", "null", "undefined", "-1", "%25"];
const BAD_CODES = ["x".repeat(42), "x".repeat(44), "%00".repeat(43), `${"A".repeat(42)}%2B`, `${"A".repeat(42)}=`, "x".repeat(5000), "%ff", "..%2F"];
const UNKNOWN_PATHS = ["/v2/external/shipment", "/v2/external/shipments/", "/v3/external/me", "/v2/external/me/", "/V2/external/me", "/v2/external/shipments/0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b/cancel/x", "/%2e%2e/etc/passwd", "/v2/external/me%00", "/v2//external/me", `/${"a".repeat(4000)}`, "/v2/external/webhook/rotate-secret/", "/v2/public/tracking/", "/oauth/token/x", "/.well-known/", "/v2/external/%ff"];

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const bearer = (token: string): [string, string] => ["authorization", `Bearer ${token}`];
const latin1 = (value: string) => Buffer.from(value, "latin1").toString("latin1");

/** The operation's valid request: body from the document's examples with the merchant's own data. */
function validBody(random: Random, op: Operation, ctx: FuzzContext, n: number): unknown {
  switch (op.id) {
    case "createShipment": {
      const reference = `FUZZ-${n}-${random.string(6)}`;
      if (random.chance(0.5)) {
        return { reference, pickup: random.chance(0.5) ? { savedLocationCode: ctx.savedLocation } : { latitude: 24.7136, longitude: 46.6753 }, destination: { latitude: 24.7743, longitude: 46.7386 }, recipient: { name: "Sara Al-Qahtani", mobile: "0551234567" }, parcel: { description: "Shoes", pieces: 2, weightKg: 1.5 }, codAmount: 149.5 };
      }
      return { externalReference: reference, pickupLocationCode: ctx.savedLocation, recipient: { name: "Sara Al-Qahtani", phone: "+966551234567" }, destination: { latitude: 24.7743, longitude: 46.7386, cityCode: "RUH" }, items: [{ description: "Shoes", quantity: 2, weightKilograms: 0.75, lengthCentimetres: 30 }], requirements: ["FRAGILE"], declaredValue: 10, codAmount: 0, currency: "SAR", paymentMethod: "PREPAID" };
    }
    case "cancelShipment":
      return random.chance(0.5) ? { reason: "CUSTOMER_REQUEST" } : { reasonCode: "CUSTOMER_REQUEST" };
    case "registerWebhook":
      return { url: "http://127.0.0.1:9/tawsil-hooks", events: ["shipment.created", "shipment.cancelled"] };
    case "updateWebhook":
      return random.pick([{ status: "PAUSED" }, { status: "ACTIVE" }, { url: "http://127.0.0.1:9/other" }, { events: ["shipment.delivered"] }]);
    // The fuzz driver is offered nothing (see fuzz.e2e.test.ts): every step is a 404 JOB_NOT_FOUND.
    case "setDriverAvailability":
      return { onShift: false, ...(random.chance(0.5) ? { position: { latitude: 24.7136, longitude: 46.6753 } } : {}) };
    case "reportDriverLocations":
      return { fixes: Array.from({ length: random.int(1, 3) }, () => ({ latitude: 24.7136, longitude: 46.6753, accuracyMetres: 10 })) };
    case "reportDriverStep":
      return random.pick([{ step: "PICKED_UP" }, { step: "DELIVERY_FAILED", reasonCode: "RECIPIENT_ABSENT" }, { step: "DELIVERED", deliveryPin: "1234", codCollected: { amount: 10, currency: "SAR" } }]);
    default:
      return structuredClone(op.body?.examples[0] ?? {});
  }
}

function pathOf(random: Random, op: Operation, ctx: FuzzContext, bad: boolean): { path: string; change: string } {
  let change = "";
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "shipmentId") {
      const value = bad ? random.pick(BAD_IDS) : random.pick([ctx.targetShipment, ctx.targetShipment, ctx.cancelledShipment, ctx.foreignShipment, randomUUID(), ctx.targetShipment.toUpperCase()]);
      change = bad ? `shipmentId=${value.slice(0, 40)}` : "";
      return value;
    }
    if (name === "mediaAssetId") {
      const value = bad ? random.pick(BAD_IDS) : random.pick([ctx.mediaAsset, ctx.mediaAsset, ctx.foreignMediaAsset, randomUUID(), ctx.mediaAsset.toUpperCase()]);
      change = bad ? `mediaAssetId=${value.slice(0, 40)}` : "";
      return value;
    }
    if (name === "offerId") {
      const value = bad ? random.pick(BAD_IDS) : randomUUID();
      change = bad ? `offerId=${value.slice(0, 40)}` : "";
      return value;
    }
    const value = bad ? random.pick(BAD_CODES) : random.pick([ctx.trackingCode, ctx.trackingCode, random.string(43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")]);
    change = bad ? `code=${value.slice(0, 40)}` : "";
    return value;
  });
  return { path, change };
}

function listQuery(random: Random, ctx: FuzzContext, kind: string): { query: string; change: string } {
  if (kind === "bad-cursor") {
    const flipped = `${ctx.cursor.slice(0, 5)}${ctx.cursor[5] === "A" ? "B" : "A"}${ctx.cursor.slice(6)}`;
    const cursor = random.pick(["", "!!!", "x".repeat(257), "A".repeat(256), random.string(40), flipped, ctx.cursor, `${ctx.cursor}=`, "%00", ctx.cursor.slice(0, -1)]);
    const rest = random.pick(["limit=1", "limit=2", "limit=1&state=CANCELLED", ""]);
    return { query: `${rest}${rest ? "&" : ""}cursor=${cursor}`, change: `cursor=${cursor.slice(0, 20)} ${rest}` };
  }
  if (kind === "bad-query") {
    const query = random.pick(["limit=0", "limit=101", "limit=-1", "limit=1.5", "limit=abc", "limit=", "limit=1e2", "limit=00010", "limit=%205", "state=BOGUS", "state=cancelled", "state=", "externalReference=", `externalReference=${"x".repeat(129)}`, "externalReference=%D8%B4", "foo=bar", "limit=1&limit=2", "state=CANCELLED&state=DELIVERED", "limit=%zz", `q=${"x".repeat(6000)}`, "limit[]=1", "limit[a]=1", "%00=1", "externalReference=%00"]);
    return { query, change: query.slice(0, 40) };
  }
  const query = random.pick(["", "limit=1", "limit=100", "state=PENDING_APPROVAL", "state=CANCELLED&limit=5", "externalReference=FUZZ-1"]);
  return { query, change: "" };
}

/** One request for `op` with one mutation of `kind`. */
export function generateRequest(random: Random, op: Operation, kind: string, ctx: FuzzContext, n: number): FuzzRequest {
  const pathParts = pathOf(random, op, ctx, kind === "bad-path-param");
  let path = pathParts.path;
  let change = pathParts.change;
  let method = op.method;
  const headers: [string, string][] = [];
  if (op.authenticated) headers.push(bearer(op.driver ? ctx.driverToken : ctx.token));
  let body: Buffer | undefined;

  if (op.id === "issueAccessToken") return tokenRequest(random, kind, ctx);
  if (op.id === "listShipments") {
    const { query, change: queryChange } = listQuery(random, ctx, kind);
    if (query) path += `?${query}`;
    change ||= queryChange;
  }
  if (op.body) {
    const valid = validBody(random, op, ctx, n);
    const bodyKind = (BODY_KINDS as string[]).includes(kind) ? (kind as BodyMutation) : "valid";
    const mutated = mutateBody(random, bodyKind, valid, op.body.schema);
    change ||= mutated.change === "none" ? "" : mutated.change;
    body = json(mutated.body);
    headers.push(["content-type", "application/json"]);
    if (kind === "bad-json") {
      const text = random.pick([...BAD_JSON, JSON.stringify(valid).slice(0, random.int(1, JSON.stringify(valid).length - 1))]);
      body = Buffer.from(text);
      change = text.slice(0, 30);
    } else if (kind === "bad-utf8") {
      const text = JSON.stringify(valid);
      const at = text.indexOf('":"') + 3 || 1;
      const bytes = random.pick(BAD_UTF8);
      body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
      change = bytes.map((b) => b.toString(16)).join(" ");
    } else if (kind === "content-type") {
      const type = random.pick([...CONTENT_TYPES, "(none)"]);
      headers.splice(headers.findIndex(([name]) => name === "content-type"), 1);
      if (type !== "(none)") headers.push(["content-type", type]);
      change = type;
    }
  }
  // Creates, cancels and drivers' steps carry a good key by default, as the SDK sends them.
  if (op.id === "createShipment" || op.id === "cancelShipment" || op.id === "reportDriverStep") {
    if (kind === "idempotency-key") {
      const key = random.pick(IDEMPOTENCY_KEYS);
      headers.push(["idempotency-key", latin1(key)]);
      change = `key=${key.slice(0, 20)}`;
    } else if (random.chance(0.7)) headers.push(["idempotency-key", `fuzz-${n}-${random.string(12)}`]);
  }
  if (["updateWebhook", "deleteWebhook", "rotateWebhookSecret"].includes(op.id)) {
    const current = ctx.webhookVersion();
    if (kind === "if-match") {
      const value = random.pick([...IF_MATCH, "(none)", String(current ?? 0)]);
      if (value !== "(none)") headers.push(["if-match", value]);
      change = `if-match=${value.slice(0, 20)}`;
    } else headers.push(["if-match", `"${current ?? 0}"`]);
  }
  switch (kind) {
    case "accept-language": {
      const value = random.pick(LANGUAGES);
      headers.push(["accept-language", latin1(value)]);
      change = `accept-language=${value.slice(0, 20)}`;
      break;
    }
    case "tracing-headers": {
      const [name, value] = random.chance(0.5) ? ["x-correlation-id", random.pick(CORRELATION_IDS)] : ["traceparent", random.pick(TRACEPARENTS)];
      headers.push([name, value]);
      change = `${name}=${value.slice(0, 20)}`;
      break;
    }
    case "duplicate-header": {
      const name = random.pick(["authorization", "content-type", "accept-language", "idempotency-key", "x-correlation-id", "if-match", "traceparent", "host"]);
      const existing = headers.find(([n]) => n === name)?.[1];
      const second = random.pick([existing ?? "x", "en", "ar", `Bearer ${ctx.otherToken}`, '"1"', "application/xml", randomUUID()]);
      if (existing === undefined) headers.push([name, random.pick(["ar", "en", "application/json", randomUUID()])]);
      headers.push([name, second]);
      change = `2x ${name}`;
      break;
    }
    case "huge-header": {
      const size = random.pick([2_000, 8_000, 12_000]);
      if (random.chance(0.5)) headers.push(["x-filler", "f".repeat(size)]);
      else for (let i = 0; i < 90; i++) headers.push([`x-many-${i}`, String(i)]);
      change = `headers ${size}`;
      break;
    }
    case "auth": {
      const i = headers.findIndex(([name]) => name === "authorization");
      if (i >= 0) headers.splice(i, 1);
      const tampered = `${ctx.token.slice(0, -3)}${ctx.token.endsWith("AAA") ? "BBB" : "AAA"}`;
      const value = random.pick(["(none)", "Bearer", "Bearer garbage", `Bearer ${tampered}`, `Basic ${Buffer.from("a:b").toString("base64")}`, `bearer ${ctx.token}`, `Bearer ${ctx.readOnlyToken}`, `Bearer ${ctx.otherToken}`, `Bearer ${ctx.token} extra`, `Bearer  ${ctx.token}`, `Bearer ${"x".repeat(5000)}`, "Bearer a.b.c", `Bearer ${ctx.token.split(".").slice(0, 2).join(".")}.`]);
      if (value !== "(none)") headers.push(["authorization", value]);
      change = `auth=${value.slice(0, 24)}`;
      break;
    }
    case "method": {
      method = random.pick(["PUT", "DELETE", "PATCH", "POST", "GET", "OPTIONS"].filter((m) => m !== op.method));
      change = method;
      break;
    }
    case "unknown-path": {
      path = random.pick(UNKNOWN_PATHS);
      change = path.slice(0, 40);
      break;
    }
  }
  return { operation: op.id, kind, change, method, path, headers, body: method === "GET" || (method === "DELETE" && !op.body) ? undefined : body, mutating: mayChangeState(method, path) };
}

/**
 * Whether an answer may have changed state: any method but a read, on any path but the token
 * endpoint; decided by what was sent, since a wrong method or path can still reach a real route
 * (DELETE on the webhook with a good If-Match deletes it, whatever operation it was drawn for).
 */
const mayChangeState = (method: string, path: string) => !["GET", "HEAD", "OPTIONS"].includes(method) && path !== "/oauth/token";

function tokenRequest(random: Random, kind: string, ctx: FuzzContext): FuzzRequest {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  const form = random.pick(["grant_type=client_credentials", "grant_type=client_credentials&scope=shipments:read", "grant_type=client_credentials&scope=shipments%3Aread+shipments%3Awrite"]);
  let headers: [string, string][] = [["authorization", basic(ctx.clientId, ctx.clientSecret)], ["content-type", "application/x-www-form-urlencoded"]];
  let body = form;
  let change = "";
  switch (kind) {
    case "form": {
      body = random.pick(["grant_type=password", "grant_type=", "grant_type=CLIENT_CREDENTIALS", "", "scope=shipments:read", "grant_type=client_credentials&scope=bogus", "grant_type=client_credentials&scope=", "grant_type=client_credentials&scope=shipments:read%20shipments:read", "grant_type=client_credentials&grant_type=client_credentials", `grant_type=client_credentials&client_id=${ctx.clientId}&client_secret=${ctx.clientSecret}`, "grant_type=client_credentials&extra=1", "grant_type=%zz", "grant_type=client_credentials&scope=%00", `grant_type=client_credentials&scope=${"x".repeat(10_000)}`]);
      change = body.slice(0, 40);
      break;
    }
    case "client-auth": {
      const made = `fuzz-${random.string(8)}`;
      const value = random.pick(["(none)", "Basic !!!", `Basic ${Buffer.from("nocolon").toString("base64")}`, `Basic ${Buffer.from(":").toString("base64")}`, basic(made, "wrong"), basic("%zz", "%zz"), basic(ctx.clientId, "wrong-secret"), `Bearer ${ctx.token}`, "Basic", `Basic ${"x".repeat(3000)}`, basic(ctx.clientId.toUpperCase(), ctx.clientSecret), "(body)"]);
      headers = headers.filter(([name]) => name !== "authorization");
      if (value === "(body)") body = `${form}&client_id=${made}&client_secret=nope`;
      else if (value !== "(none)") headers.push(["authorization", value]);
      change = value.slice(0, 24);
      break;
    }
    case "content-type": {
      const type = random.pick(["application/json", "text/plain", "(none)", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded; charset=latin1"]);
      headers = headers.filter(([name]) => name !== "content-type");
      if (type !== "(none)") headers.push(["content-type", type]);
      if (type === "application/json") body = JSON.stringify({ grant_type: "client_credentials" });
      change = type;
      break;
    }
    case "bad-utf8":
      return { operation: "issueAccessToken", kind, change: "ff", method: "POST", path: "/oauth/token", headers, body: Buffer.concat([Buffer.from("grant_type=client_credentials&scope="), Buffer.from([0xff, 0xfe])]), mutating: false };
    case "huge-string":
      body = `${form}&scope=${"x".repeat(300_000)}`;
      change = "300k form";
      break;
    case "accept-language": {
      const value = random.pick(LANGUAGES);
      headers.push(["accept-language", latin1(value)]);
      change = value.slice(0, 20);
      break;
    }
  }
  return { operation: "issueAccessToken", kind, change, method: "POST", path: "/oauth/token", headers, body: Buffer.from(body), mutating: false };
}

/** The kinds of mutation that apply to an operation. */
export function kindsFor(op: Operation): string[] {
  if (op.id === "issueAccessToken") return ["valid", "form", "client-auth", "content-type", "bad-utf8", "huge-string", "accept-language"];
  const kinds = ["valid", ...HEADER_KINDS, "method", "unknown-path"];
  if (op.body) kinds.push(...BODY_KINDS.filter((k) => k !== "valid"), ...RAW_BODY_KINDS);
  if (op.path.includes("{")) kinds.push("bad-path-param");
  if (op.id === "listShipments") kinds.push("bad-query", "bad-cursor");
  if (op.id === "createShipment" || op.id === "cancelShipment" || op.id === "reportDriverStep") kinds.push("idempotency-key");
  if (["updateWebhook", "deleteWebhook", "rotateWebhookSecret"].includes(op.id)) kinds.push("if-match");
  return kinds;
}
