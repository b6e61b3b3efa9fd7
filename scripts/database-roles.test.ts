/**
 * The two roles of ./database-roles.ts on a real PostgreSQL server: the migrator applies a
 * service's committed migrations; the runtime role (the Deployments' DATABASE_URL) reads and
 * writes rows and can tell that its schema is current, but cannot create, alter or drop anything.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dropDatabase, migrate } from "../packages/db/src/index";
import { withConnection } from "../packages/db/src/pg-connection";
import { pendingMigrations } from "../packages/db/src/pending-migrations";
import { databaseStatements, rolesOf, serverStatements } from "./database-roles";

const adminUrl = inject("databaseAdminUrl");
const roles = rolesOf("merchant", `tawsil_roles${process.pid}_`);
const passwords = { migrator: "migrator-not-a-secret", runtime: "runtime-not-a-secret" };
const migrations = path.join(import.meta.dirname, "..", "services", "merchant", "prisma", "migrations");

function urlAs(user: string, password: string): string {
  const url = new URL(adminUrl);
  url.username = user;
  url.password = password;
  url.pathname = `/${roles.database}`;
  return url.toString();
}
const migratorUrl = urlAs(roles.migrator, passwords.migrator);
const runtimeUrl = urlAs(roles.runtime, passwords.runtime);
const asRuntime = (sql: string) => withConnection(runtimeUrl, (client) => client.query(sql));

beforeAll(async () => {
  await withConnection(adminUrl, async (client) => {
    for (const statement of serverStatements(roles, passwords)) await client.query(statement);
  });
  const inDatabase = new URL(adminUrl);
  inDatabase.pathname = `/${roles.database}`;
  await withConnection(inDatabase.toString(), async (client) => {
    for (const statement of databaseStatements(roles)) await client.query(statement);
  });
});

afterAll(async () => {
  await dropDatabase(adminUrl, roles.database);
  await withConnection(adminUrl, async (client) => {
    for (const role of [roles.runtime, roles.migrator]) await client.query(`DROP ROLE IF EXISTS "${role}"`);
  });
});

describe("database roles of a service", () => {
  it("the migrator applies the committed migrations; the runtime role then finds none pending", async () => {
    expect(await pendingMigrations(runtimeUrl, migrations)).not.toEqual([]);
    const { applied } = await migrate(migratorUrl, migrations);
    expect(applied.length).toBeGreaterThan(0);
    expect(await pendingMigrations(runtimeUrl, migrations)).toEqual([]);
  });

  it("the runtime role reads, inserts, updates and deletes rows", async () => {
    await expect(asRuntime("SELECT count(*) FROM outbox_event")).resolves.toBeDefined();
    await expect(asRuntime("INSERT INTO outbox_event SELECT * FROM outbox_event WHERE false")).resolves.toBeDefined();
    await expect(asRuntime("UPDATE outbox_event SET attempts = attempts WHERE false")).resolves.toBeDefined();
    await expect(asRuntime("DELETE FROM outbox_event WHERE false")).resolves.toBeDefined();
  });

  it.each([
    "CREATE TABLE intruder (id int)",
    "ALTER TABLE outbox_event ADD COLUMN intruder int",
    "DROP TABLE outbox_event",
    "TRUNCATE outbox_event",
  ])("the runtime role cannot change the schema: %s", async (sql) => {
    await expect(asRuntime(sql)).rejects.toMatchObject({ code: expect.stringMatching(/^42501$/) });
  });
});
