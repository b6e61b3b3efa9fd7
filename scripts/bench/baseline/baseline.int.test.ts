import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dropDatabase } from "../../../packages/db/src/index";
import { createBaseline } from "./app";
import { prepareBaselineDatabase, seedBaselineShipments } from "./database";
import { BaselineStore } from "./store";

const ISSUER = "https://sandbox.api.tawsil.sa";
const AUDIENCE = "https://api.tawsil.sa/v2";
const MERCHANT = randomUUID();
const OTHER_MERCHANT = randomUUID();
const LOCATION = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300, addressLine: "King Fahd Road", cityCode: "RUH" };

describe("the one-process baseline on real PostgreSQL", () => {
  const adminUrl = inject("databaseAdminUrl");
  const name = `tawsil_bench_baseline_${randomUUID().slice(0, 8)}`;
  let pool: pg.Pool;
  let base: string;
  let close: () => Promise<void>;
  let token: string;
  let otherToken: string;
  let seeded: string[];

  beforeAll(async () => {
    const url = await prepareBaselineDatabase(adminUrl, name);
    seeded = await seedBaselineShipments(url, MERCHANT, 30, new Date(Date.now() - 60_000));
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
    const sign = (merchantId: string) =>
      new SignJWT({ merchant_id: merchantId, scope: "shipments:read shipments:write" })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject(`client-${merchantId.slice(0, 4)}`)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey);
    token = await sign(MERCHANT);
    otherToken = await sign(OTHER_MERCHANT);
    pool = new pg.Pool({ connectionString: url, max: 4 });
    const server = createBaseline({
      store: new BaselineStore(pool),
      jwks: { keys: [jwk] },
      issuer: ISSUER,
      audience: AUDIENCE,
      cursorSecret: randomBytes(32),
      locations: { "RUH-WH-01": LOCATION },
      publicBaseUrl: "http://localhost:8080",
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });

  afterAll(async () => {
    await close?.();
    await pool?.end();
    await dropDatabase(adminUrl, name);
  });

  const send = async (path: string, opts: { method?: string; body?: unknown; bearer?: string; key?: string } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: opts.method ?? "GET",
      headers: {
        ...(opts.bearer === "" ? {} : { authorization: `Bearer ${opts.bearer ?? token}` }),
        "content-type": "application/json",
        ...(opts.key ? { "idempotency-key": opts.key } : {}),
      },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const draft = (reference: string) => ({
    reference,
    pickup: { savedLocationCode: "RUH-WH-01" },
    destination: { latitude: 24.774265, longitude: 46.738586 },
    recipient: { name: "Bench", mobile: "0512345678" },
  });

  it("creates a shipment with its record, item and outbox row in one transaction, and replays it", async () => {
    const created = await send("/v2/external/shipments", { method: "POST", body: draft("INT-1"), key: "key-1" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ reference: "INT-1", status: "CREATED" });
    const id = created.body.id as string;

    const replay = await send("/v2/external/shipments", { method: "POST", body: draft("INT-1"), key: "key-1" });
    expect(replay).toEqual({ status: 200, body: created.body });

    const rows = await pool.query(
      `SELECT (SELECT count(*) FROM shipment WHERE id = $1)::int AS shipments, (SELECT count(*) FROM shipment_item WHERE shipment_id = $1)::int AS items,
              (SELECT count(*) FROM outbox_event WHERE key = $1::text)::int AS events, (SELECT count(*) FROM idempotency_record WHERE shipment_id = $1)::int AS records`,
      [id],
    );
    expect(rows.rows[0]).toEqual({ shipments: 1, items: 1, events: 1, records: 1 });
  });

  it("refuses a reused key with another body, a duplicate reference, an unknown property and a missing token", async () => {
    await send("/v2/external/shipments", { method: "POST", body: draft("INT-2"), key: "key-2" });
    expect((await send("/v2/external/shipments", { method: "POST", body: draft("INT-2b"), key: "key-2" })).status).toBe(422);
    expect((await send("/v2/external/shipments", { method: "POST", body: draft("INT-2"), key: "key-3" })).status).toBe(409);
    expect((await send("/v2/external/shipments", { method: "POST", body: { ...draft("INT-4"), extra: 1 } })).body).toMatchObject({ code: "VALIDATION_FAILED" });
    expect((await send("/v2/external/shipments", { method: "POST", body: draft("INT-5"), bearer: "" })).status).toBe(401);
  });

  it("reads a shipment by id for its merchant only", async () => {
    const id = seeded[0]!;
    const read = await send(`/v2/external/shipments/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ shipmentId: id, state: "DELIVERED", items: [{ description: "Bench parcel", quantity: 1 }] });
    expect((await send(`/v2/external/shipments/${id}`, { bearer: otherToken })).status).toBe(403);
    expect((await send(`/v2/external/shipments/${randomUUID()}`)).status).toBe(404);
  });

  it("lists pages newest first by keyset, and the cursor leads to the next page", async () => {
    const first = await send("/v2/external/shipments?limit=10");
    const data = first.body.data as { shipmentId: string; createdAt: string }[];
    const page = first.body.page as { nextCursor: string; hasMore: boolean };
    expect(data).toHaveLength(10);
    expect(page.hasMore).toBe(true);
    const second = await send(`/v2/external/shipments?limit=10&cursor=${page.nextCursor}`);
    const next = second.body.data as { shipmentId: string; createdAt: string }[];
    expect(next).toHaveLength(10);
    const all = [...data, ...next];
    expect(new Set(all.map((s) => s.shipmentId)).size).toBe(20);
    const times = all.map((s) => Date.parse(s.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await send(`/v2/external/shipments?limit=10&cursor=${page.nextCursor}`, { bearer: otherToken })).status).toBe(400);
  });
});
