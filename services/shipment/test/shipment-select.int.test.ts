import { randomUUID } from "node:crypto";
import { createPrismaClient, disconnect } from "@tawsil/db";
import type { TestDatabase } from "@tawsil/testing";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ShipmentState } from "../src/domain/lifecycle";
import type { TimelineEntry } from "../src/domain/media-asset";
import type { Item, Shipment } from "../src/domain/shipment";
import { trackingCode, trackingCodeSha256 } from "../src/domain/tracking-link";
import { Prisma, PrismaClient } from "../src/infra/prisma/generated/client";
import { shipmentFromRow, type ShipmentRow } from "../src/infra/shipment-row";
import { selectPendingApproval, selectShipmentById, selectShipmentByTrackingCodeSha256, selectShipmentForUpdate, selectShipmentPage } from "../src/infra/shipment-select";
import { createShipmentDatabase, insertShipments, TRACKING_LINK_SECRET } from "./support";

/**
 * Every read of a shipment row (by id, locked, by tracking code, a page of the list, the approval
 * queue) answers what was written through the one row mapping of shipment-row.ts: every field,
 * items in order, attached media in sortOrder, nulls, enums, dates, the bigint version, and
 * decimals in their canonical text, worked out here apart from the SQL with Prisma's Decimal (what
 * the Prisma reads these statements replaced answered). Which rows, in what order, is asked of
 * Prisma's query API: each statement must select exactly what that query selects.
 */
let db: TestDatabase;
let client: PrismaClient;
const MERCHANT = randomUUID();
const OTHER = randomUUID();

const STATES: ShipmentState[] = ["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "DISPATCH_UNRESOLVED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "DELIVERY_FAILED", "CANCELLED"];

const ITEM_VARIANTS: Item[][] = [
  [],
  [{ description: "Shoes", quantity: 2, weightKilograms: "0.750", lengthCentimetres: null, widthCentimetres: null, heightCentimetres: null }],
  [
    { description: "Box \"A\" — عربي", quantity: 1, weightKilograms: "12.5", lengthCentimetres: "30", widthCentimetres: "20.5", heightCentimetres: "0.125" },
    { description: "Second", quantity: 100, weightKilograms: "999999999.999", lengthCentimetres: "99999.999", widthCentimetres: "0.001", heightCentimetres: "10.100" },
    { description: "Third", quantity: 3, weightKilograms: "0", lengthCentimetres: "0", widthCentimetres: null, heightCentimetres: "100" },
  ],
];

function shipment(merchantId: string, index: number, createdAt: Date): Shipment {
  const odd = index % 2 === 1;
  return {
    id: uuidv7({ msecs: createdAt.getTime() }),
    shipmentNumber: `TWS-SEL${String(index).padStart(7, "0")}`,
    merchantId,
    externalReference: `SEL-${index}`,
    state: STATES[index % STATES.length]!,
    version: BigInt(index) * 1_000_000_007n + 1n,
    recipientName: `Recipient ${index}`,
    recipientPhone: "+966512345678",
    alternateContactName: odd ? "Alt" : null,
    alternateContactPhone: odd ? "+966598765432" : null,
    totalWeightKilograms: odd ? "1.5" : "123456789.125",
    declaredValue: odd ? "0" : "99.9",
    codAmount: odd ? "10.05" : "0.00",
    currency: "SAR",
    paymentMethod: odd ? "COD" : "PREPAID",
    pickupWindow: index % 3 === 0 ? { start: new Date(createdAt.getTime() + 3_600_000), end: new Date(createdAt.getTime() + 7_200_123) } : null,
    createdAt,
    approvedAt: odd ? new Date(createdAt.getTime() + 1) : null,
    pickup: { coordinate: { latitudeMicro: 24_690_000 + index, longitudeMicro: -46_685_000 }, addressLine: "King Fahd Rd", cityCode: "RUH" },
    destination: { coordinate: { latitudeMicro: -1, longitudeMicro: 0 }, addressLine: "Al Malaz", cityCode: "JED" },
    items: ITEM_VARIANTS[index % ITEM_VARIANTS.length]!,
    requirements: index % 4 === 0 ? [] : index % 4 === 1 ? ["FRAGILE"] : ["FRAGILE", "COLD_CHAIN"],
    timelineMedia: [],
    deliveryPin: null,
    branchCode: odd ? "BRANCH-1" : null,
    reasonCode: index % 5 === 0 ? "CUSTOMER_REQUEST" : null,
    terms: { rateCardId: randomUUID(), rateCardVersion: index + 1, serviceLevel: odd ? "CAR" : "BIKE", price: odd ? "28.75" : "1000000.1", distanceMetres: index * 37 },
  };
}

const shipments: Shipment[] = [];
const written = new Map<string, Shipment>();
/** Attached media by shipment id, inserted out of their sortOrder. */
const media = new Map<string, TimelineEntry[]>();

beforeAll(async () => {
  db = await createShipmentDatabase(inject("databaseAdminUrl"), "select");
  client = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 2 });
  const base = Date.now() - 86_400_000;
  // Three shipments per millisecond for MERCHANT: pages must break ties on the id alike.
  for (let i = 0; i < 60; i++) shipments.push(shipment(MERCHANT, i, new Date(base + Math.floor(i / 3))));
  for (let i = 60; i < 70; i++) shipments.push(shipment(OTHER, i, new Date(base + i)));
  for (const s of shipments) written.set(s.id, s);
  await insertShipments(db.url, shipments);
  // Media on a shipment of each queue the reads serve (index 0 and 10 wait for approval).
  for (const [index, sortOrder, purpose] of [[0, 2, "LABEL"], [0, 0, "PHOTO"], [0, 1, "PHOTO"], [10, 0, "INVOICE"]] as const) {
    const entry = { mediaAssetId: randomUUID(), purpose, sortOrder };
    const shipmentId = shipments[index]!.id;
    media.set(shipmentId, [...(media.get(shipmentId) ?? []), entry]);
    await client.$executeRaw`INSERT INTO media_asset (id, merchant_id, purpose, content_type, size_bytes, status, created_at, expires_at, shipment_id, sort_order)
      VALUES (${entry.mediaAssetId}::uuid, ${MERCHANT}::uuid, ${purpose}, 'image/png', 1, 'READY', now(), now() + interval '1 day', ${shipmentId}::uuid, ${sortOrder}::int)`;
  }
});

afterAll(async () => {
  if (client) await disconnect(client);
  await db?.drop();
});

const fixed = (value: string, places: number) => new Prisma.Decimal(value).toFixed(places);
const trimmed = (value: string | null) => (value === null ? null : new Prisma.Decimal(value).toString());

/** What a read must answer for a shipment written: weights to 3 places, money to 2, dimensions without trailing zeros. */
function stored(id: string): Shipment {
  const s = written.get(id)!;
  return {
    ...s,
    totalWeightKilograms: fixed(s.totalWeightKilograms, 3),
    declaredValue: fixed(s.declaredValue, 2),
    codAmount: fixed(s.codAmount, 2),
    items: s.items.map((item) => ({
      ...item,
      weightKilograms: fixed(item.weightKilograms, 3),
      lengthCentimetres: trimmed(item.lengthCentimetres),
      widthCentimetres: trimmed(item.widthCentimetres),
      heightCentimetres: trimmed(item.heightCentimetres),
    })),
    timelineMedia: [...(media.get(id) ?? [])].sort((a, b) => a.sortOrder - b.sortOrder),
    terms: { ...s.terms, price: fixed(s.terms.price, 2) },
  };
}

async function read(statement: Prisma.Sql): Promise<Shipment[]> {
  return (await client.$queryRaw<ShipmentRow[]>(statement)).map(shipmentFromRow);
}

const ids = (rows: { id: string }[]) => rows.map(({ id }) => id);

type PageQuery = { merchantId: string; state: ShipmentState | null; externalReference: string | null };

async function prismaPage(query: PageQuery, after: { createdAt: Date; id: string } | null, limit: number): Promise<string[]> {
  const rows = await client.shipment.findMany({
    where: {
      merchantId: query.merchantId,
      ...(query.state === null ? {} : { state: query.state }),
      ...(query.externalReference === null ? {} : { externalReference: query.externalReference }),
      ...(after ? { createdAt: { lte: after.createdAt }, OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true },
  });
  return ids(rows);
}

describe("the shipment reads", () => {
  it("read every shipment by id as it was written, decimals in their canonical text", async () => {
    for (const { id } of shipments) {
      const [found] = await read(selectShipmentById(id));
      expect(found).toStrictEqual(stored(id));
      expect(typeof found?.version).toBe("bigint");
      expect(found?.createdAt).toBeInstanceOf(Date);
    }
    const [third] = await read(selectShipmentById(shipments[2]!.id));
    expect(third?.items).toEqual([
      { description: "Box \"A\" — عربي", quantity: 1, weightKilograms: "12.500", lengthCentimetres: "30", widthCentimetres: "20.5", heightCentimetres: "0.125" },
      { description: "Second", quantity: 100, weightKilograms: "999999999.999", lengthCentimetres: "99999.999", widthCentimetres: "0.001", heightCentimetres: "10.1" },
      { description: "Third", quantity: 3, weightKilograms: "0.000", lengthCentimetres: "0", widthCentimetres: null, heightCentimetres: "100" },
    ]);
    expect(third?.totalWeightKilograms).toBe("123456789.125");
    expect((await read(selectShipmentById(shipments[1]!.id)))[0]?.declaredValue).toBe("0.00");
    expect((await read(selectShipmentById(shipments[0]!.id)))[0]?.timelineMedia.map((m) => m.sortOrder)).toEqual([0, 1, 2]);
  });

  it("lock the row and read it as the read by id does, in one statement", async () => {
    const target = shipments[2]!;
    const locked = await client.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<ShipmentRow[]>(selectShipmentForUpdate(target.id));
      // Another transaction cannot take the row now: NOWAIT fails at once with lock_not_available.
      const other = await client
        .$queryRawUnsafe("SELECT 1 FROM shipment WHERE id = $1::uuid FOR UPDATE NOWAIT", target.id)
        .then(() => "taken", (error: unknown) => (JSON.stringify(error).includes("55P03") ? "held" : String(error)));
      return { shipment: row ? shipmentFromRow(row) : null, other };
    });
    expect(locked.shipment).toStrictEqual(stored(target.id));
    expect(locked.other).toBe("held");
    expect(await client.$transaction(async (tx) => tx.$queryRaw<ShipmentRow[]>(selectShipmentForUpdate(randomUUID())))).toEqual([]);
  });

  it("find nothing for an unknown id or tracking code", async () => {
    expect(await read(selectShipmentById(randomUUID()))).toEqual([]);
    expect(await read(selectShipmentByTrackingCodeSha256(new Uint8Array(32)))).toEqual([]);
  });

  it("find a shipment by its tracking code's hash", async () => {
    const secret = Buffer.from(TRACKING_LINK_SECRET, "base64");
    for (const { id } of shipments.slice(0, 12)) {
      const hash = trackingCodeSha256(trackingCode(secret, id));
      expect(await read(selectShipmentByTrackingCodeSha256(hash))).toStrictEqual([stored(id)]);
    }
  });

  it("page exactly as the Prisma list does: filters, ties on the millisecond, cursors and limits", async () => {
    const queries: PageQuery[] = [
      { merchantId: MERCHANT, state: null, externalReference: null },
      { merchantId: MERCHANT, state: "READY_FOR_DISPATCH", externalReference: null },
      { merchantId: MERCHANT, state: null, externalReference: "SEL-7" },
      { merchantId: MERCHANT, state: "CANCELLED", externalReference: "SEL-9" },
      { merchantId: MERCHANT, state: "CANCELLED", externalReference: "SEL-8" },
      { merchantId: OTHER, state: null, externalReference: null },
      { merchantId: randomUUID(), state: null, externalReference: null },
    ];
    let compared = 0;
    for (const query of queries) {
      for (const limit of [1, 4, 7, 101]) {
        let after: { createdAt: Date; id: string } | null = null;
        for (;;) {
          const [expected, page]: [string[], Shipment[]] = await Promise.all([prismaPage(query, after, limit), read(selectShipmentPage(query, after, limit))]);
          expect(page).toStrictEqual(expected.map(stored));
          compared += page.length;
          const last: Shipment | undefined = page.at(-1);
          if (page.length < limit || !last) break;
          after = { createdAt: last.createdAt, id: last.id };
        }
      }
    }
    // Every MERCHANT shipment seen once per limit on the unfiltered walk, and more: the walk really ran.
    expect(compared).toBeGreaterThan(4 * 60);
  });

  it("list the approval queue as the Prisma list does: oldest first, of one merchant or of all", async () => {
    let compared = 0;
    for (const merchantId of [null, MERCHANT, OTHER, randomUUID()]) {
      for (const limit of [1, 3, 500]) {
        const expected = await client.shipment.findMany({
          where: { state: "PENDING_APPROVAL", ...(merchantId === null ? {} : { merchantId }) },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: limit,
          select: { id: true },
        });
        const queue = await read(selectPendingApproval(merchantId, limit));
        expect(queue).toStrictEqual(ids(expected).map(stored));
        compared += queue.length;
      }
    }
    // Six of MERCHANT's sixty and one of OTHER's ten wait for approval: the queue really was read.
    expect(compared).toBeGreaterThan(10);
  });
});
