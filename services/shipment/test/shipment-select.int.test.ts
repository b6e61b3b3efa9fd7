import { randomUUID } from "node:crypto";
import { createPrismaClient, disconnect } from "@tawsil/db";
import type { TestDatabase } from "@tawsil/testing";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ShipmentState } from "../src/domain/lifecycle";
import type { Item, Shipment } from "../src/domain/shipment";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { shipmentFromRow } from "../src/infra/shipment-rows";
import { trackingCode, trackingCodeSha256 } from "../src/domain/tracking-link";
import {
  selectPendingApproval,
  selectShipmentById,
  selectShipmentByTrackingCodeSha256,
  selectShipmentForUpdate,
  selectShipmentPage,
  shipmentFromSelectRow,
  type ShipmentSelectRow,
} from "../src/infra/shipment-select";
import { createShipmentDatabase, insertShipments, TRACKING_LINK_SECRET } from "./support";

/**
 * The typed raw reads must answer exactly what the Prisma reads they replaced answered (findUnique
 * and findMany with the items relation joined, mapped by shipmentFromRow): every field, items in
 * order, nulls, enums, decimals' canonical text, dates, the bigint version, and the same pages.
 */
let db: TestDatabase;
let client: PrismaClient;
const MERCHANT = randomUUID();
const OTHER = randomUUID();
const ITEMS = { items: { orderBy: { position: "asc" } }, timelineMedia: { orderBy: { sortOrder: "asc" }, select: { id: true, purpose: true, sortOrder: true } } } as const;

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

beforeAll(async () => {
  db = await createShipmentDatabase(inject("databaseAdminUrl"), "select");
  client = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 2 });
  const base = Date.now() - 86_400_000;
  // Three shipments per millisecond for MERCHANT: pages must break ties on the id alike.
  for (let i = 0; i < 60; i++) shipments.push(shipment(MERCHANT, i, new Date(base + Math.floor(i / 3))));
  for (let i = 60; i < 70; i++) shipments.push(shipment(OTHER, i, new Date(base + i)));
  await insertShipments(db.url, shipments);
  // Attached media, out of insertion order, on a shipment of each queue the reads serve.
  for (const [index, sortOrder, purpose] of [[0, 2, "LABEL"], [0, 0, "PHOTO"], [0, 1, "PHOTO"], [10, 0, "INVOICE"]] as const) {
    await client.$executeRaw`INSERT INTO media_asset (id, merchant_id, purpose, content_type, size_bytes, status, created_at, expires_at, shipment_id, sort_order)
      VALUES (${randomUUID()}::uuid, ${MERCHANT}::uuid, ${purpose}, 'image/png', 1, 'READY', now(), now() + interval '1 day', ${shipments[index]!.id}::uuid, ${sortOrder}::int)`;
  }
});

afterAll(async () => {
  if (client) await disconnect(client);
  await db?.drop();
});

async function prismaById(id: string): Promise<Shipment | null> {
  const row = await client.shipment.findUnique({ where: { id }, include: ITEMS, relationLoadStrategy: "join" });
  return row ? shipmentFromRow(row) : null;
}

async function rawById(id: string): Promise<Shipment | null> {
  const [row] = await client.$queryRaw<ShipmentSelectRow[]>(selectShipmentById(id));
  return row ? shipmentFromSelectRow(row) : null;
}

type PageQuery = { merchantId: string; state: ShipmentState | null; externalReference: string | null };

async function prismaPage(query: PageQuery, after: { createdAt: Date; id: string } | null, limit: number): Promise<Shipment[]> {
  const rows = await client.shipment.findMany({
    where: {
      merchantId: query.merchantId,
      ...(query.state === null ? {} : { state: query.state }),
      ...(query.externalReference === null ? {} : { externalReference: query.externalReference }),
      ...(after ? { createdAt: { lte: after.createdAt }, OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: ITEMS,
    relationLoadStrategy: "join",
  });
  return rows.map(shipmentFromRow);
}

async function rawPage(query: PageQuery, after: { createdAt: Date; id: string } | null, limit: number): Promise<Shipment[]> {
  const rows = await client.$queryRaw<ShipmentSelectRow[]>(selectShipmentPage(query, after, limit));
  return rows.map(shipmentFromSelectRow);
}

describe("the typed raw shipment reads", () => {
  it("find a shipment by its tracking code's hash and list the approval queue as the Prisma reads did, media included", async () => {
    const secret = Buffer.from(TRACKING_LINK_SECRET, "base64");
    for (const written of shipments.slice(0, 12)) {
      const hash = trackingCodeSha256(trackingCode(secret, written.id));
      const before = await client.shipment.findUnique({ where: { trackingCodeSha256: Buffer.from(hash) }, include: ITEMS });
      const [after] = await client.$queryRaw<ShipmentSelectRow[]>(selectShipmentByTrackingCodeSha256(hash));
      expect(after && shipmentFromSelectRow(after)).toStrictEqual(before && shipmentFromRow(before));
    }
    expect(await client.$queryRaw<ShipmentSelectRow[]>(selectShipmentByTrackingCodeSha256(new Uint8Array(32)))).toEqual([]);
    expect((await rawById(shipments[0]!.id))?.timelineMedia.map((m) => m.sortOrder)).toEqual([0, 1, 2]);
    let compared = 0;
    for (const merchantId of [null, MERCHANT, OTHER, randomUUID()]) {
      for (const limit of [1, 3, 500]) {
        const before = await client.shipment.findMany({
          where: { state: "PENDING_APPROVAL", ...(merchantId === null ? {} : { merchantId }) },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          take: limit,
          include: ITEMS,
          relationLoadStrategy: "join",
        });
        const after = await client.$queryRaw<ShipmentSelectRow[]>(selectPendingApproval(merchantId, limit));
        expect(after.map(shipmentFromSelectRow)).toStrictEqual(before.map(shipmentFromRow));
        compared += after.length;
      }
    }
    // Six of MERCHANT's sixty and one of OTHER's ten wait for approval: the queue really was read.
    expect(compared).toBeGreaterThan(10);
  });

  it("map every shipment exactly as the Prisma read did, and what was written", async () => {
    for (const written of shipments) {
      const [before, after] = await Promise.all([prismaById(written.id), rawById(written.id)]);
      expect(after).toStrictEqual(before);
      expect(typeof after?.version).toBe("bigint");
      expect(after?.createdAt).toBeInstanceOf(Date);
      // Round trip of what was written, decimals in their canonical text (weights 3 places, money 2, dimensions trimmed).
      expect(after?.items.map((item) => item.description)).toEqual(written.items.map((item) => item.description));
    }
    const third = await rawById(shipments[2]!.id);
    expect(third?.items).toEqual([
      { description: "Box \"A\" — عربي", quantity: 1, weightKilograms: "12.500", lengthCentimetres: "30", widthCentimetres: "20.5", heightCentimetres: "0.125" },
      { description: "Second", quantity: 100, weightKilograms: "999999999.999", lengthCentimetres: "99999.999", widthCentimetres: "0.001", heightCentimetres: "10.1" },
      { description: "Third", quantity: 3, weightKilograms: "0.000", lengthCentimetres: "0", widthCentimetres: null, heightCentimetres: "100" },
    ]);
    expect(third?.totalWeightKilograms).toBe("123456789.125");
    expect(shipments[1] && (await rawById(shipments[1].id))?.declaredValue).toBe("0.00");
  });

  it("lock the row and read it as the read by id does, in one statement", async () => {
    const target = shipments[2]!;
    const read = await rawById(target.id);
    const locked = await client.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<ShipmentSelectRow[]>(selectShipmentForUpdate(target.id));
      // Another transaction cannot take the row now: NOWAIT fails at once with lock_not_available.
      const other = await client
        .$queryRawUnsafe("SELECT 1 FROM shipment WHERE id = $1::uuid FOR UPDATE NOWAIT", target.id)
        .then(() => "taken", (error: unknown) => (JSON.stringify(error).includes("55P03") ? "held" : String(error)));
      return { shipment: row ? shipmentFromSelectRow(row) : null, other };
    });
    expect(locked.shipment).toStrictEqual(read);
    expect(locked.other).toBe("held");
    expect(await client.$transaction(async (tx) => tx.$queryRaw<ShipmentSelectRow[]>(selectShipmentForUpdate(randomUUID())))).toEqual([]);
  });

  it("find nothing for an unknown id, as before", async () => {
    const id = randomUUID();
    expect(await rawById(id)).toBeNull();
    expect(await prismaById(id)).toBeNull();
  });

  it("page exactly as the Prisma list did: filters, ties on the millisecond, cursors and limits", async () => {
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
          const [before, now]: [Shipment[], Shipment[]] = await Promise.all([prismaPage(query, after, limit), rawPage(query, after, limit)]);
          expect(now).toStrictEqual(before);
          compared += now.length;
          const last: Shipment | undefined = now.at(-1);
          if (now.length < limit || !last) break;
          after = { createdAt: last.createdAt, id: last.id };
        }
      }
    }
    // Every MERCHANT shipment seen once per limit on the unfiltered walk, and more: the walk really ran.
    expect(compared).toBeGreaterThan(4 * 60);
  });
});
