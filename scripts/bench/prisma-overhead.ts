/**
 * Prisma's cost per statement on this machine (issue 9, item 3): the shipment service's own
 * generated client on the pg driver adapter, as the service opens it (@tawsil/db openDatabase),
 * against raw `pg` issuing the same statement, on a scratch copy of the shipment schema.
 * Statements: a primary-key read (findUnique vs SELECT ... WHERE id = $1), the service's read by id
 * (the shipment and its items in one statement), a list page of 25 with items and an insert of one
 * shipment (create vs INSERT ... RETURNING *), each sequentially and 8 at a time. Each Prisma
 * variant is a row against the same pg figure: the model API as the services open it
 * (errorFormat "minimal"), the model API with Prisma's default error format (what every service
 * ran before), and typed raw SQL ($queryRaw tagged templates, what the shipment reads run now).
 * At 8 at a time the findUnique rows flatter Prisma: its dataloader merges findUnique calls issued
 * in the same tick into one query, which this closed loop does and a service's requests, arriving
 * in separate ticks, mostly do not; the sequential rows are the per-request figure.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createPrismaClient, databaseUrl, dropDatabase, ensureDatabase, migrate, openDatabase } from "../../packages/db/src/index";
import { PrismaClient } from "../../services/shipment/src/infra/prisma/generated/client";
import { selectShipmentById, selectShipmentPage } from "../../services/shipment/src/infra/shipment-select";
import { RIYADH, seedShipments } from "../../packages/testing/src/seed/seed";
import { ratio } from "../../packages/testing/src/load/stats";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface StatementFigures {
  /** Wall time per statement (total time / statements), microseconds. */
  readonly wallUs: number;
  /** This process's CPU per statement, microseconds: the client library's own cost. */
  readonly cpuUs: number;
}

export interface OverheadRow {
  readonly statement: string;
  readonly concurrency: number;
  readonly prisma: StatementFigures;
  readonly pg: StatementFigures;
  /** prisma / pg wall time per statement. */
  readonly wallRatio: number;
  readonly cpuRatio: number;
}

async function timed(statements: number, concurrency: number, one: (i: number) => Promise<unknown>): Promise<StatementFigures> {
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < statements) await one(next++);
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallUs: (wallMs * 1000) / statements, cpuUs: (cpu.user + cpu.system) / statements };
}

export async function measurePrismaOverhead(adminUrl: string, dbName: string, statementsPer: number, connections: number, log: (line: string) => void): Promise<OverheadRow[]> {
  await dropDatabase(adminUrl, dbName);
  await ensureDatabase(adminUrl, dbName);
  const url = databaseUrl(adminUrl, dbName);
  await migrate(url, path.join(ROOT, "services", "shipment", "prisma", "migrations"));
  const merchantId = randomUUID();
  const ids = (await seedShipments(url, { merchantId, count: 1000, state: "DELIVERED", version: 7, cityCode: "RUH", at: RIYADH, newest: new Date(), spacingSeconds: 1, firstNumber: 0, referencePrefix: "PRISMA-" })).map((r) => r.id);

  const logger = { warn: (obj: object, msg: string) => log(`${msg} ${JSON.stringify(obj)}`) };
  const database = openDatabase(PrismaClient, { url, maxConnections: connections, logger });
  const prisma = database.client;
  const pool = new pg.Pool({ connectionString: url, max: connections });
  // An idle connection the database drop terminates must not crash the bench (pg emits it on the pool).
  pool.on("error", (err) => log(`  an idle pg connection ended: ${err.message}`));
  const row = (i: number, tag: string) => ({
    id: randomUUID(),
    shipmentNumber: `TWS-${tag}${String(i).padStart(8, "0")}`,
    merchantId,
    externalReference: `PRISMA-${tag}-${i}`,
    state: "READY_FOR_DISPATCH" as const,
    version: 2n,
    recipientName: "Bench recipient",
    recipientPhone: "+966512345678",
    totalWeightKilograms: "1.000",
    declaredValue: "0.00",
    codAmount: "0.00",
    currency: "SAR",
    paymentMethod: "PREPAID" as const,
    createdAt: new Date(),
    approvedAt: new Date(),
    pickupLatitudeMicro: RIYADH.latitudeMicro,
    pickupLongitudeMicro: RIYADH.longitudeMicro,
    pickupAddressLine: "Bench pickup",
    pickupCityCode: "RUH",
    destLatitudeMicro: 24_774_265,
    destLongitudeMicro: 46_738_586,
    destAddressLine: "Bench destination",
    destCityCode: "RUH",
    requirements: [],
    rateCardId: "00000000-0000-4000-8000-00000000be0c",
    rateCardVersion: 1,
    serviceLevel: "BIKE",
    price: "28.75",
    distanceMetres: 9120,
  });
  const INSERT = `INSERT INTO shipment (id, shipment_number, merchant_id, external_reference, state, version, recipient_name, recipient_phone,
      total_weight_kilograms, declared_value, cod_amount, currency, payment_method, created_at, approved_at, pickup_latitude_micro,
      pickup_longitude_micro, pickup_address_line, pickup_city_code, destination_latitude_micro, destination_longitude_micro,
      destination_address_line, destination_city_code, requirements, rate_card_id, rate_card_version, service_level, price, distance_metres)
    VALUES ($1, $2, $3, $4, $5::shipment_state, $6, $7, $8, $9, $10, $11, $12, $13::payment_method, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29)
    RETURNING *`;
  const pgInsert = (r: ReturnType<typeof row>) =>
    pool.query(INSERT, [
      r.id, r.shipmentNumber, r.merchantId, r.externalReference, r.state, r.version, r.recipientName, r.recipientPhone, r.totalWeightKilograms,
      r.declaredValue, r.codAmount, r.currency, r.paymentMethod, r.createdAt, r.approvedAt, r.pickupLatitudeMicro, r.pickupLongitudeMicro,
      r.pickupAddressLine, r.pickupCityCode, r.destLatitudeMicro, r.destLongitudeMicro, r.destAddressLine, r.destCityCode, r.requirements,
      r.rateCardId, r.rateCardVersion, r.serviceLevel, r.price, r.distanceMetres,
    ]);

  // Prisma's default error format outside production (colorless): a call site captured per query.
  const defaultFormat = createPrismaClient(PrismaClient, { url, maxConnections: connections, errorFormat: "colorless" });
  const ITEMS = { items: { orderBy: { position: "asc" } } } as const;
  const id = (i: number) => ids[i % ids.length]!;
  const page = { merchantId, state: null, externalReference: null };
  const raw = (statement: { text: string; values: unknown[] }) => pool.query(statement.text, statement.values);

  type One = (i: number, tag: string) => Promise<unknown>;
  const statements: { statement: string; pg: One; prisma: { variant: string; run: One }[] }[] = [
    {
      statement: "read by primary key",
      pg: (i) => pool.query("SELECT * FROM shipment WHERE id = $1", [id(i)]),
      prisma: [
        { variant: "findUnique", run: (i) => prisma.shipment.findUnique({ where: { id: id(i) } }) },
        { variant: "findUnique, default errorFormat", run: (i) => defaultFormat.shipment.findUnique({ where: { id: id(i) } }) },
        { variant: "$queryRaw", run: (i) => prisma.$queryRaw`SELECT * FROM shipment WHERE id = ${id(i)}::uuid` },
      ],
    },
    {
      statement: "read by id with items",
      pg: (i) => raw(selectShipmentById(id(i))),
      prisma: [
        { variant: "findUnique join", run: (i) => prisma.shipment.findUnique({ where: { id: id(i) }, include: ITEMS, relationLoadStrategy: "join" }) },
        { variant: "findUnique join, default errorFormat", run: (i) => defaultFormat.shipment.findUnique({ where: { id: id(i) }, include: ITEMS, relationLoadStrategy: "join" }) },
        { variant: "$queryRaw typed (the service's read)", run: (i) => prisma.$queryRaw(selectShipmentById(id(i))) },
      ],
    },
    {
      statement: "list page of 25 with items",
      pg: () => raw(selectShipmentPage(page, null, 26)),
      prisma: [
        {
          variant: "findMany join",
          run: () => prisma.shipment.findMany({ where: { merchantId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 26, include: ITEMS, relationLoadStrategy: "join" }),
        },
        { variant: "$queryRaw typed (the service's list)", run: () => prisma.$queryRaw(selectShipmentPage(page, null, 26)) },
      ],
    },
    {
      statement: "insert one shipment",
      pg: (i, tag) => pgInsert(row(i, tag)),
      prisma: [
        { variant: "create", run: (i, tag) => prisma.shipment.create({ data: row(i, tag) }) },
        { variant: "create, default errorFormat", run: (i, tag) => defaultFormat.shipment.create({ data: row(i, tag) }) },
      ],
    },
  ];
  const rows: OverheadRow[] = [];
  let round = 0;
  try {
    for (const { statement, pg: pgRun, prisma: variants } of statements) {
      for (const concurrency of [1, connections]) {
        // Warm every client (JIT, pools, the adapter's type cache), then measure each in turn.
        const tag = () => `${(round++).toString(36).padStart(2, "0")}`;
        const warmTag = tag();
        for (const [n, variant] of variants.entries()) await timed(200, concurrency, (i) => variant.run(i, `${warmTag}${n}`));
        await timed(200, concurrency, (i) => pgRun(i, `${warmTag}p`));
        // Two passes, the second in reverse order, each of half the statements: whichever runs
        // first after the warm-up (or right after a GC-heavy neighbour) is not favoured or penalised.
        const runners = [{ name: "pg", run: pgRun }, ...variants.map((variant) => ({ name: variant.variant, run: variant.run }))];
        const halves = new Map<string, StatementFigures[]>(runners.map((r) => [r.name, []]));
        for (const order of [runners, [...runners].reverse()]) {
          for (const runner of order) {
            const runTag = tag();
            halves.get(runner.name)!.push(await timed(Math.ceil(statementsPer / 2), concurrency, (i) => runner.run(i, runTag)));
          }
        }
        const mean = (name: string): StatementFigures => {
          const [a, b] = halves.get(name)! as [StatementFigures, StatementFigures];
          return { wallUs: (a.wallUs + b.wallUs) / 2, cpuUs: (a.cpuUs + b.cpuUs) / 2 };
        };
        const pgFigures = mean("pg");
        for (const variant of variants) {
          const prismaFigures = mean(variant.variant);
          const label = `${statement}: ${variant.variant}`;
          const result = { statement: label, concurrency, prisma: prismaFigures, pg: pgFigures, wallRatio: ratio(prismaFigures.wallUs, pgFigures.wallUs), cpuRatio: ratio(prismaFigures.cpuUs, pgFigures.cpuUs) };
          rows.push(result);
          log(`  ${label.padEnd(62)} x${String(concurrency).padEnd(2)} prisma ${result.prisma.wallUs.toFixed(0).padStart(5)} µs (cpu ${result.prisma.cpuUs.toFixed(0)} µs)  pg ${result.pg.wallUs.toFixed(0).padStart(5)} µs (cpu ${result.pg.cpuUs.toFixed(0)} µs)  ratio ${result.wallRatio.toFixed(2)}x wall, ${result.cpuRatio.toFixed(2)}x cpu`);
        }
      }
    }
  } finally {
    await database.close();
    await defaultFormat.$disconnect();
    await pool.end();
    await dropDatabase(adminUrl, dbName);
  }
  return rows;
}
