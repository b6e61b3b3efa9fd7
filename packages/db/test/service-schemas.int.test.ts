import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaConfigs } from "../../testing/src/prisma-configs";
import { findSchemaDrift, readPrismaSchema, type PrismaSchema } from "../src/drift";
import { migrate } from "../src/index";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { createTestDatabase } from "./test-database";

const ROOT = path.resolve(import.meta.dirname, "../../..");

interface PrismaTarget {
  config: string;
  schemaPath: string;
  /** The schema.prisma text. */
  schema: string;
  parsed: PrismaSchema;
  migrationsDir: string;
  clientPath: string;
}

/** Where a prisma.config.ts puts its schema, migrations and generated client (paths relative to the config). */
async function targetOf(config: string): Promise<PrismaTarget> {
  const configPath = path.join(ROOT, config);
  const loaded = (await import(pathToFileURL(configPath).href)) as { default: { schema?: string; migrations?: { path?: string } } };
  const base = path.dirname(configPath);
  const schemaPath = path.resolve(base, loaded.default.schema ?? "prisma/schema.prisma");
  const migrationsDir = path.resolve(base, loaded.default.migrations?.path ?? "prisma/migrations");
  const schema = await readFile(schemaPath, "utf8");
  const parsed = await readPrismaSchema(schema);
  const output = parsed.generatorOutputs.get("client");
  if (!output) throw new Error(`${schemaPath} has no generator output`);
  return { config, schemaPath, schema, parsed, migrationsDir, clientPath: path.join(path.dirname(schemaPath), output, "client.ts") };
}

/**
 * The generated client declares the schema's models and fields, through its public `Prisma`
 * namespace (ModelName, <Model>ScalarFieldEnum): a client generated from an older schema fails here.
 */
async function expectClientCurrent(target: PrismaTarget): Promise<void> {
  const loaded = (await import(pathToFileURL(target.clientPath).href).catch((error: unknown) => {
    throw new Error(`Cannot load ${target.clientPath}; run \`tsx scripts/prisma-generate.ts\` (${String(error)})`);
  })) as { Prisma: Record<string, Record<string, string>> };
  const declared = (model: string) => Object.values(loaded.Prisma[`${model}ScalarFieldEnum`] ?? {});
  const models = target.parsed.datamodel.models;
  const stale = `${target.clientPath} is stale; run \`tsx scripts/prisma-generate.ts\``;
  expect(Object.values(loaded.Prisma.ModelName ?? {}).sort(), stale).toEqual(models.map((model) => model.name).sort());
  for (const model of models) {
    const fields = model.fields.filter((field) => field.kind !== "object").map((field) => field.name);
    expect(declared(model.name), `${stale} (${model.name})`).toEqual(fields);
  }
}

describe.each(prismaConfigs())("migrations of %s", (config) => {
  it("build exactly the database its schema declares, which its generated client was made from", async () => {
    const target = await targetOf(config);
    await expectClientCurrent(target);
    const db = await createTestDatabase("drift");
    try {
      await migrate(db.url, target.migrationsDir);
      expect(await findSchemaDrift(db.url, target.schema)).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});

describe("findSchemaDrift on a migration that disagrees with the model", () => {
  const INIT = "20261125224550_init";
  let fixture: string;
  let sql: string;
  /** The fixture's later migrations (parked events, retention indexes), applied after the edited init. */
  let later: Record<string, string>;
  let dir: MigrationsDir | undefined;

  beforeAll(async () => {
    // The events fixture: the outbox, processed-event and parked-event tables, so an edit of its
    // init migration is the only drift (services grow later migrations of their own).
    const target = await targetOf(path.join("packages", "events", "test", "prisma", "prisma.config.ts"));
    fixture = target.schema;
    sql = await readFile(path.join(target.migrationsDir, INIT, "migration.sql"), "utf8");
    const names = (await readdir(target.migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory() && e.name !== INIT).map((e) => e.name);
    later = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readFile(path.join(target.migrationsDir, name, "migration.sql"), "utf8")] as const)));
  });

  afterAll(async () => {
    await dir?.remove();
  });

  /** Drift of the fixture's model against its init migration edited by `edit`. */
  async function driftAfter(edit: (migration: string) => string): Promise<string[]> {
    const edited = edit(sql);
    expect(edited).not.toBe(sql);
    await dir?.remove();
    dir = await createMigrationsDir({ [INIT]: edited, ...later });
    const db = await createTestDatabase("drift_negative");
    try {
      await migrate(db.url, dir.path);
      return await findSchemaDrift(db.url, fixture);
    } finally {
      await db.drop();
    }
  }

  it("reports a column the migration forgot", async () => {
    expect(await driftAfter((migration) => migration.replace('    "attempts" INTEGER NOT NULL DEFAULT 0,\n', ""))).toEqual([
      'column "outbox_event"."attempts" (OutboxEvent.attempts) is missing from the database',
    ]);
  });

  it("reports a wrong type, nullability and missing default", async () => {
    const drift = await driftAfter((migration) =>
      migration
        .replace('"sent_at" TIMESTAMPTZ(3),', '"sent_at" TIMESTAMP(3),')
        .replace('"topic" TEXT NOT NULL,', '"topic" TEXT,')
        .replace('"headers" JSONB NOT NULL DEFAULT \'{}\',', '"headers" JSONB NOT NULL,'),
    );
    expect(drift).toEqual([
      'column "outbox_event"."headers" has no default, OutboxEvent.headers expects one',
      'column "outbox_event"."sent_at" has type timestamp(3) without time zone, OutboxEvent.sentAt expects timestamp(3) with time zone',
      'column "outbox_event"."topic" is nullable, OutboxEvent.topic expects NOT NULL',
    ]);
  });

  it("reports missing and misnamed indexes and a different primary key", async () => {
    const drift = await driftAfter((migration) =>
      migration
        .replace('CREATE UNIQUE INDEX "outbox_event_event_id_key" ON "outbox_event"("event_id");', "SELECT 1;")
        .replace('"outbox_event_sent_at_seq_idx"', '"outbox_pending_idx"')
        .replace('PRIMARY KEY ("consumer_group","event_id")', 'PRIMARY KEY ("event_id","consumer_group")'),
    );
    expect(drift).toEqual([
      'table "outbox_event" has index btree "outbox_pending_idx" (sent_at, seq) that the model does not declare',
      'table "outbox_event" is missing index btree "outbox_event_sent_at_seq_idx" (sent_at, seq)',
      'table "outbox_event" is missing index unique btree "outbox_event_event_id_key" (event_id)',
      'table "processed_event" has primary key "processed_event_pkey" (event_id, consumer_group), the model declares "processed_event_pkey" (consumer_group, event_id)',
    ]);
  });

  it("reports tables and columns no model maps to", async () => {
    const drift = await driftAfter(
      (migration) => `${migration}\nCREATE TABLE "stray" ("id" INTEGER);\nALTER TABLE "processed_event" ADD COLUMN "note" TEXT;\n`,
    );
    expect(drift).toEqual([
      'column "processed_event"."note" exists in the database but no field maps to it',
      'table "stray" exists in the database but no model maps to it',
    ]);
  });
});
