/**
 * The two PostgreSQL roles of one service's database (deploy/README.md, "PostgreSQL"): a migrator
 * that owns the database and its schema and is the only role able to change it (the migration
 * Job's MIGRATION_DATABASE_URL), and a runtime role with CONNECT, USAGE and DML alone (the
 * Deployment's DATABASE_URL), so a compromised or buggy service cannot alter or drop its schema.
 *
 *   MIGRATOR_PASSWORD=... RUNTIME_PASSWORD=... tsx scripts/database-roles.ts shipment | psql "$ADMIN_URL"
 *
 * Passwords come from the environment, never the command line. Run once per service and database
 * server, as a role with CREATEROLE and CREATEDB; ./database-roles.test.ts runs it.
 */
import { pathToFileURL } from "node:url";

export interface ServiceRoles {
  database: string;
  migrator: string;
  runtime: string;
}

export const rolesOf = (service: string, prefix = "tawsil_"): ServiceRoles => ({
  database: `${prefix}${service}`,
  migrator: `${prefix}${service}_migrator`,
  runtime: `${prefix}${service}_runtime`,
});

const ident = (name: string): string => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `"${name}"`;
};
const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** Statements on the server (any database): the roles and the database, owned by the migrator. */
export function serverStatements(roles: ServiceRoles, passwords: { migrator: string; runtime: string }): string[] {
  return [
    `CREATE ROLE ${ident(roles.migrator)} LOGIN PASSWORD ${literal(passwords.migrator)}`,
    `CREATE ROLE ${ident(roles.runtime)} LOGIN PASSWORD ${literal(passwords.runtime)}`,
    `CREATE DATABASE ${ident(roles.database)} OWNER ${ident(roles.migrator)}`,
    // No other role of the server may connect or create objects in it.
    `REVOKE ALL ON DATABASE ${ident(roles.database)} FROM PUBLIC`,
    `GRANT CONNECT ON DATABASE ${ident(roles.database)} TO ${ident(roles.runtime)}`,
  ];
}

/** Statements inside the service's database: the schema is the migrator's; the runtime role gets DML only. */
export function databaseStatements(roles: ServiceRoles): string[] {
  const [migrator, runtime] = [ident(roles.migrator), ident(roles.runtime)];
  return [
    `ALTER SCHEMA public OWNER TO ${migrator}`,
    `REVOKE ALL ON SCHEMA public FROM PUBLIC`,
    `GRANT USAGE ON SCHEMA public TO ${runtime}`,
    // Tables and sequences the migrator creates later (every migration) are granted as they appear.
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${runtime}`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${runtime}`,
    // And those that exist already, when a database is moved to this split after its first migrations.
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${runtime}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${runtime}`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const service = process.argv[2] ?? "";
  const { MIGRATOR_PASSWORD: migrator, RUNTIME_PASSWORD: runtime } = process.env;
  if (!/^[a-z]+$/.test(service) || !migrator || !runtime) {
    process.stderr.write("usage: MIGRATOR_PASSWORD=... RUNTIME_PASSWORD=... tsx scripts/database-roles.ts <service> | psql <admin url>\n");
    process.exit(2);
  }
  const roles = rolesOf(service);
  const lines = [...serverStatements(roles, { migrator, runtime }), `\\connect ${roles.database}`, ...databaseStatements(roles)];
  process.stdout.write(`\\set ON_ERROR_STOP on\n${lines.map((line) => (line.startsWith("\\") ? line : `${line};`)).join("\n")}\n`);
}
