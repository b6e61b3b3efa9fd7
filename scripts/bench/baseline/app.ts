/**
 * The one-process baseline: what the mesh's create, read and list do, in one Node process with
 * raw `pg` and no network hop between the steps. JWT check with jose (ES256, the mesh's token,
 * a verified token remembered until it expires, as the gateway does), strict zod validation of a
 * shape A body, then one transaction. Pickup locations and the rate card are settings here, where
 * the mesh reads them from the merchant service: the baseline is an upper bound, not a twin.
 */
import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import http from "node:http";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { z } from "zod";
import type { BaselineStore, ShipmentRow } from "./store";

export interface SavedLocation {
  readonly latitudeMicro: number;
  readonly longitudeMicro: number;
  readonly addressLine: string;
  readonly cityCode: string;
}

export interface BaselineOptions {
  readonly store: BaselineStore;
  readonly jwks: JSONWebKeySet;
  readonly issuer: string;
  readonly audience: string;
  readonly cursorSecret: Uint8Array;
  /** Saved pickup locations by code. */
  readonly locations: Record<string, SavedLocation>;
  readonly publicBaseUrl: string;
}

const MOBILE = /^(?:05|5|\+9665)[0-9]{8}$/;
const CODE = /^[A-Z0-9][A-Z0-9_-]{1,63}$/;
const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

/** Shape A, strict at every level, as the gateway validates it. */
export const shapeA = z.strictObject({
  reference: z.string().min(1).max(128),
  pickup: z.strictObject({ savedLocationCode: z.string().regex(CODE).optional(), latitude: latitude.optional(), longitude: longitude.optional() }),
  destination: z.strictObject({ latitude, longitude }),
  recipient: z.strictObject({ name: z.string().min(1).max(120), mobile: z.string().regex(MOBILE) }),
  parcel: z
    .strictObject({ description: z.string().min(1).max(160).optional(), pieces: z.number().int().min(1).max(100).optional(), weightKg: z.number().positive().max(100_000).optional() })
    .optional(),
  codAmount: z.number().positive().max(10_000_000).optional(),
});

interface Principal {
  readonly clientId: string;
  readonly merchantId: string;
  readonly scopes: ReadonlySet<string>;
  readonly expiresAt: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const SHIPMENT = /^\/v2\/external\/shipments\/([0-9a-f-]{36})$/;

export function createBaseline(opts: BaselineOptions): http.Server {
  const keys = createLocalJWKSet(opts.jwks);
  const verified = new Map<string, Principal>();

  async function principal(req: http.IncomingMessage, scope: string): Promise<Principal> {
    const header = req.headers.authorization ?? "";
    if (!header.startsWith("Bearer ")) throw new HttpError(401, "AUTHENTICATION_REQUIRED");
    const token = header.slice(7);
    let found = verified.get(token);
    if (!found || found.expiresAt < Date.now() / 1000) {
      try {
        const { payload } = await jwtVerify(token, keys, { algorithms: ["ES256"], issuer: opts.issuer, audience: opts.audience, requiredClaims: ["exp", "iat", "sub", "jti"] });
        const { sub, merchant_id: merchantId, scope: scopes, exp } = payload as Record<string, unknown>;
        if (typeof sub !== "string" || typeof merchantId !== "string" || typeof scopes !== "string" || typeof exp !== "number") throw new Error("claims");
        found = { clientId: sub, merchantId, scopes: new Set(scopes.split(" ")), expiresAt: exp };
        verified.set(token, found);
      } catch {
        throw new HttpError(401, "AUTHENTICATION_REQUIRED");
      }
    }
    if (!found.scopes.has(scope)) throw new HttpError(403, "ACCESS_DENIED");
    return found;
  }

  async function create(req: http.IncomingMessage, body: string): Promise<[number, unknown]> {
    const who = await principal(req, "shipments:write");
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new HttpError(400, "MALFORMED_REQUEST");
    }
    const parsed = shapeA.safeParse(json);
    if (!parsed.success) return [422, { code: "VALIDATION_FAILED", violations: parsed.error.issues.map((i) => ({ field: i.path.join("."), code: i.code })) }];
    const draft = parsed.data;
    const pickup = draft.pickup.savedLocationCode === undefined ? undefined : opts.locations[draft.pickup.savedLocationCode];
    if (!pickup) return [422, { code: "VALIDATION_FAILED", violations: [{ field: "pickup.savedLocationCode", code: "UNKNOWN_REFERENCE" }] }];
    const destination = { latitudeMicro: Math.round(draft.destination.latitude * 1e6), longitudeMicro: Math.round(draft.destination.longitude * 1e6), cityCode: pickup.cityCode };
    const distanceMetres = Math.round(haversineMetres(pickup, destination) * 1.3);
    const weight = draft.parcel?.weightKg ?? 1;
    const now = new Date();
    const id = randomUUID();
    // The tracking link is an HMAC of the id, as the shipment service derives it.
    const trackingUrl = `${opts.publicBaseUrl}/t/${createHmac("sha256", opts.cursorSecret).update(id).digest("base64url")}`;
    const snapshot = { id, reference: draft.reference, status: "CREATED", trackingUrl, codAmount: draft.codAmount ?? null, createdAt: now.toISOString(), version: 2 };
    const outcome = await opts.store.create(
      { merchantId: who.merchantId, clientId: who.clientId, key: (req.headers["idempotency-key"] as string | undefined) ?? draft.reference, fingerprint: createHash("sha256").update(body).digest("base64url") },
      {
        id,
        shipmentNumber: `TWS-${String(randomInt(1e9)).padStart(10, "0")}`,
        merchantId: who.merchantId,
        reference: draft.reference,
        recipientName: draft.recipient.name,
        recipientPhone: `+9665${draft.recipient.mobile.slice(-8)}`,
        weightKg: weight.toFixed(3),
        codAmount: (draft.codAmount ?? 0).toFixed(2),
        pickup,
        destination,
        item: { description: draft.parcel?.description ?? "Parcel", quantity: draft.parcel?.pieces ?? 1 },
        price: price(distanceMetres, weight),
        distanceMetres,
        createdAt: now,
      },
      snapshot,
    );
    switch (outcome.kind) {
      case "created": return [201, snapshot];
      case "replayed": return [200, outcome.snapshot];
      case "key-reused": throw new HttpError(422, "IDEMPOTENCY_KEY_REUSED");
      case "duplicate-reference": throw new HttpError(409, "DUPLICATE_REFERENCE");
    }
  }

  async function read(req: http.IncomingMessage, id: string): Promise<[number, unknown]> {
    const who = await principal(req, "shipments:read");
    const row = await opts.store.findById(id);
    if (!row) throw new HttpError(404, "SHIPMENT_NOT_FOUND");
    if (row.merchant_id !== who.merchantId) throw new HttpError(403, "ACCESS_DENIED");
    return [200, render(row)];
  }

  async function list(req: http.IncomingMessage, url: URL): Promise<[number, unknown]> {
    const who = await principal(req, "shipments:read");
    const limit = Number(url.searchParams.get("limit") ?? 25);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new HttpError(400, "INVALID_PARAMETER");
    const cursor = url.searchParams.get("cursor");
    const after = cursor ? decodeCursor(opts.cursorSecret, who.merchantId, cursor) : null;
    const rows = await opts.store.listPage(who.merchantId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const nextCursor = rows.length > limit && last ? encodeCursor(opts.cursorSecret, who.merchantId, { createdAt: last.created_at, id: last.id }) : null;
    return [200, { data: page.map(render), page: { limit, nextCursor, hasMore: nextCursor !== null }, links: { self: req.url } }];
  }

  async function route(req: http.IncomingMessage, body: string): Promise<[number, unknown]> {
    const url = new URL(req.url ?? "/", "http://baseline");
    if (url.pathname === "/v2/external/shipments") {
      if (req.method === "POST") return create(req, body);
      if (req.method === "GET") return list(req, url);
    }
    const match = SHIPMENT.exec(url.pathname);
    if (match && req.method === "GET") return read(req, match[1]!);
    if (url.pathname === "/healthz") return [200, { status: "ok" }];
    throw new HttpError(404, "RESOURCE_NOT_FOUND");
  }

  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      route(req, Buffer.concat(chunks).toString("utf8"))
        .catch((err: unknown): [number, unknown] => {
          if (err instanceof HttpError) return [err.status, { code: err.code }];
          // Into the baseline's log (.dev/bench/logs/baseline.log): a 500 here counts as an error of the round.
          console.error(`baseline ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          return [500, { code: "INTERNAL_ERROR" }];
        })
        .then(([status, payload]) => {
          const text = JSON.stringify(payload);
          res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
          res.end(text);
        });
    });
  });
}

function render(row: ShipmentRow) {
  const degrees = (micro: unknown) => Number(micro) / 1e6;
  return {
    shipmentId: row.id,
    shipmentNumber: row.shipment_number,
    externalReference: row.external_reference,
    state: row.state,
    recipientName: row.recipient_name,
    maskedRecipientPhone: `*********${String(row.recipient_phone).slice(-4)}`,
    totalWeightKilograms: Number(row.total_weight_kilograms),
    codAmount: Number(row.cod_amount),
    currency: row.currency,
    pickup: { addressLine: row.pickup_address_line, cityCode: row.pickup_city_code, latitude: degrees(row.pickup_latitude_micro), longitude: degrees(row.pickup_longitude_micro) },
    destination: { cityCode: row.destination_city_code, latitude: degrees(row.destination_latitude_micro), longitude: degrees(row.destination_longitude_micro) },
    items: row.items,
    price: Number(row.price),
    distanceMetres: row.distance_metres,
    createdAt: row.created_at.toISOString(),
    version: Number(row.version),
  };
}

/** base64url(position JSON || HMAC-SHA256(secret, merchant + payload)), as the shipment service's cursors. */
export function encodeCursor(secret: Uint8Array, merchantId: string, position: { createdAt: Date; id: string }): string {
  const payload = Buffer.from(JSON.stringify({ c: position.createdAt.getTime(), i: position.id }));
  return Buffer.concat([payload, createHmac("sha256", secret).update(merchantId).update("\n").update(payload).digest()]).toString("base64url");
}

function decodeCursor(secret: Uint8Array, merchantId: string, cursor: string): { createdAt: Date; id: string } {
  const bytes = Buffer.from(cursor, "base64url");
  const payload = bytes.subarray(0, Math.max(0, bytes.length - 32));
  const mac = createHmac("sha256", secret).update(merchantId).update("\n").update(payload).digest();
  if (bytes.length <= 32 || !timingSafeEqual(bytes.subarray(bytes.length - 32), mac)) throw new HttpError(400, "INVALID_CURSOR");
  const parsed = JSON.parse(payload.toString("utf8")) as { c: number; i: string };
  return { createdAt: new Date(parsed.c), id: parsed.i };
}

function haversineMetres(a: { latitudeMicro: number; longitudeMicro: number }, b: { latitudeMicro: number; longitudeMicro: number }): number {
  const rad = (micro: number) => (micro / 1e6) * (Math.PI / 180);
  const dLat = rad(b.latitudeMicro - a.latitudeMicro);
  const dLon = rad(b.longitudeMicro - a.longitudeMicro);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitudeMicro)) * Math.cos(rad(b.latitudeMicro)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

/** The sandbox rate card v1 (base 15 SAR with 10 km, 1.50 per km, 2 per kg above 5 kg), VAT 15%. */
function price(distanceMetres: number, weightKg: number): string {
  const net = 15 + Math.max(0, distanceMetres / 1000 - 10) * 1.5 + Math.max(0, weightKg - 5) * 2;
  return (net * 1.15).toFixed(2);
}
