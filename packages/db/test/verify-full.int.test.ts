/**
 * DATABASE_SSL_MODE=verify-full against a PostgreSQL server that speaks TLS: the connection is
 * encrypted and made only to the server whose certificate the configured CA signed for the url's
 * host name. The pool, a single session (LISTEN, the leader lock, migrations) and the migration
 * runner all take their TLS from the composed url.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { databaseUrlWithTls } from "@tawsil/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCertificates, type TestCertificates } from "../../testing/src/test-certificates";
import { ConnectionAwarePool } from "../src/index";
import { withConnection } from "../src/pg-connection";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { startTlsPostgres, type TlsPostgres } from "./tls-postgres";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const ENCRYPTED = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

let certificates: TestCertificates;
let server: TlsPostgres;
let rightCa: string;
let wrongCa: string;
let migrations: MigrationsDir;

beforeAll(async () => {
  certificates = testCertificates();
  const ca = certificates.authority("database-ca");
  rightCa = ca.certPath;
  wrongCa = certificates.authority("another-ca").certPath;
  // Named for localhost only: 127.0.0.1 is the same server under a name the certificate does not carry.
  server = await startTlsPostgres(certificates.server("postgres", ca, { dnsNames: ["localhost"] }));
  migrations = await createMigrationsDir({ "20260101000000_init": 'CREATE TABLE "t" ("id" INTEGER);\n' });
});

afterAll(async () => {
  await server?.close();
  await migrations?.remove();
  certificates?.remove();
});

const verifyFull = (host: string, ca: string) => databaseUrlWithTls(server.urlFor(host), { DATABASE_SSL_MODE: "verify-full", DATABASE_SSL_ROOT_CERT: ca });
const encrypted = (url: string) => withConnection(url, async (client) => (await client.query<{ ssl: boolean }>(ENCRYPTED)).rows[0]?.ssl);

describe("DATABASE_SSL_MODE=verify-full", () => {
  it("connects over TLS to the server the CA signed for the url's host", async () => {
    expect(await encrypted(verifyFull("localhost", rightCa))).toBe(true);
  });

  it("connects the pool the services query through over TLS", async () => {
    const pool = new ConnectionAwarePool({ connectionString: verifyFull("localhost", rightCa), max: 2 });
    try {
      // The pool's overrides type query() as never: read the answer as node-postgres gives it.
      const answer = (await pool.query(ENCRYPTED)) as { rows: { ssl: boolean }[] };
      expect(answer.rows[0]?.ssl).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("refuses a server whose certificate another CA signed", async () => {
    await expect(encrypted(verifyFull("localhost", wrongCa))).rejects.toThrow(/certificate/i);
  });

  it("refuses a server whose certificate does not name the url's host", async () => {
    await expect(encrypted(verifyFull("127.0.0.1", rightCa))).rejects.toThrow(/does not match certificate's altnames/);
  });

  it("is plaintext with DATABASE_SSL_MODE=disable, and as before with the setting unset (make dev)", async () => {
    expect(await encrypted(databaseUrlWithTls(server.urlFor("127.0.0.1"), { DATABASE_SSL_MODE: "disable" }))).toBe(false);
    expect(await encrypted(databaseUrlWithTls(server.urlFor("127.0.0.1"), {}))).toBe(false);
  });

  it("is how the migration runner connects, from the same two settings in its environment", async () => {
    const run = async (ca: string) => {
      const env = { PATH: process.env.PATH ?? "", DATABASE_URL: server.urlFor("localhost"), DATABASE_SSL_MODE: "verify-full", DATABASE_SSL_ROOT_CERT: ca, MIGRATE_WAIT_SECONDS: "0" };
      const cli = path.join(ROOT, "packages", "db", "src", "migrate-cli.ts");
      return promisify(execFile)(path.join(ROOT, "node_modules", ".bin", "tsx"), [cli, "--wait", migrations.path], { cwd: ROOT, env }).catch((error: { code: number; stderr: string }) => error);
    };
    // Connected and read the migrations table: the one migration is still pending.
    expect(await run(rightCa)).toMatchObject({ code: 1, stderr: expect.stringContaining("Still pending") });
    expect(await run(wrongCa)).toMatchObject({ code: 1, stderr: expect.stringMatching(/certificate/i) });
  });
});
