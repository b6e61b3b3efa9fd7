import { accessSync, constants } from "node:fs";
import type { DatabaseTls } from "./common";
import { ConfigError } from "./load-config";

/*
 * TLS of every connection to PostgreSQL comes from settings of its own (DATABASE_SSL_MODE,
 * DATABASE_SSL_ROOT_CERT in common.ts) rather than from the DATABASE_URL alone: the url is a Secret
 * nobody renders, while the settings sit in the pod spec, where the production overlay requires
 * verify-full and tests/deploy reads it. They are composed into the url once, at start-up:
 * node-postgres reads `sslmode` and `sslrootcert` from any connection string it is given, so the
 * pool, the LISTEN sessions, the leader lock, the retention job and the migration runner all
 * connect alike without each taking TLS options of its own.
 */
/** The url with the TLS settings as node-postgres reads them; a conflict or an unreadable CA is a ConfigError at start-up, not a failure of the first query. */
export function databaseUrlWithTls(url: string, tls: DatabaseTls, setting = "DATABASE_URL"): string {
  const { DATABASE_SSL_MODE: mode, DATABASE_SSL_ROOT_CERT: rootCert } = tls;
  if (mode === undefined) {
    if (rootCert !== undefined) throw new ConfigError(["DATABASE_SSL_ROOT_CERT: set DATABASE_SSL_MODE=verify-full with it"]);
    return url;
  }
  const parsed = new URL(url);
  // Two places deciding TLS would let the one nobody looks at win: refuse rather than guess.
  const own = ["sslmode", "sslrootcert", "ssl"].filter((name) => parsed.searchParams.has(name));
  if (own.length > 0) throw new ConfigError([`${setting}: carries ${own.join(", ")} while DATABASE_SSL_MODE is set; set TLS in one place`]);
  if (mode === "disable") {
    if (rootCert !== undefined) throw new ConfigError(["DATABASE_SSL_ROOT_CERT: only read with DATABASE_SSL_MODE=verify-full"]);
    parsed.searchParams.set("sslmode", "disable");
    return parsed.toString();
  }
  parsed.searchParams.set("sslmode", "verify-full");
  if (rootCert !== undefined) {
    try {
      accessSync(rootCert, constants.R_OK);
    } catch {
      throw new ConfigError([`DATABASE_SSL_ROOT_CERT: cannot read ${rootCert}`]);
    }
    parsed.searchParams.set("sslrootcert", rootCert);
  }
  return parsed.toString();
}

/** A service's config with its DATABASE_URL carrying the TLS settings; call once in readConfig. */
export function withDatabaseTls<C extends DatabaseTls & { readonly DATABASE_URL: string }>(config: C): Readonly<C> {
  return Object.freeze({ ...config, DATABASE_URL: databaseUrlWithTls(config.DATABASE_URL, config) });
}
