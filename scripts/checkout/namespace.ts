/**
 * What makes one checkout's local state its own: several checkouts of this repository (worktrees,
 * a clean clone, CI) share one PostgreSQL server, so every database `make dev` and `make bench`
 * use carries a namespace derived from the checkout's absolute path. Two checkouts never name the
 * same database, so neither can drop, migrate or read the other's data.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import path from "node:path";
import { SERVICES, SERVICES_WITH_DATABASE, type DatabaseServiceName } from "../../packages/topology/src";

/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1), which could merge two names into one. */
export const MAX_DATABASE_NAME = 63;
/** The bench's databases are `<prefix>bench_<service>`, `<prefix>bench_baseline`, `<prefix>bench_prisma`. */
const LONGEST_SUFFIX = `bench_${[...SERVICES, "baseline", "prisma"].reduce((a, b) => (b.length > a.length ? b : a))}`;
const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_]{0,29}$/;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `DEV_NAMESPACE` when set, else the checkout folder's name (readable in `\l`) plus a short hash
 * of its real path (two folders of one name in different places differ).
 */
export function checkoutNamespace(root: string, env: Env = process.env): string {
  const given = env.DEV_NAMESPACE;
  if (given !== undefined) {
    if (!NAMESPACE_PATTERN.test(given)) {
      throw new Error(`DEV_NAMESPACE=${given} is not usable: lower-case letters, digits and _, at most 30, starting with a letter or digit`);
    }
    return given;
  }
  const real = realpathSync(root);
  const slug = path.basename(real).toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 16).replace(/_+$/, "");
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 6);
  return `${slug || "checkout"}_${hash}`;
}

/**
 * The prefix of this checkout's database names: `DEV_DB_PREFIX` verbatim when set (as before
 * namespacing; the caller then answers for its uniqueness), else `tawsil_<namespace>_`.
 */
export function devDatabasePrefix(root: string, env: Env = process.env): string {
  const prefix = env.DEV_DB_PREFIX ?? `tawsil_${checkoutNamespace(root, env)}_`;
  if (!/^[a-z0-9_]+$/.test(prefix)) throw new Error(`database prefix ${prefix} may hold only lower-case letters, digits and _`);
  const longest = `${prefix}${LONGEST_SUFFIX}`;
  if (longest.length > MAX_DATABASE_NAME) {
    throw new Error(`database prefix ${prefix} is too long: ${longest} would exceed PostgreSQL's ${MAX_DATABASE_NAME} characters`);
  }
  return prefix;
}

/** The databases of one stack: `<prefix><service>`. */
/** One per service that owns data (pricing owns none). */
export function databaseNames(prefix: string): Record<DatabaseServiceName, string> {
  return Object.fromEntries(SERVICES_WITH_DATABASE.map((service) => [service, `${prefix}${service}`])) as Record<DatabaseServiceName, string>;
}

/** Every database `make dev` and `make bench` may create for a checkout with this prefix (what `make dev-reset` drops). */
export function allDatabasesOf(prefix: string): string[] {
  return [
    ...Object.values(databaseNames(prefix)),
    ...Object.values(databaseNames(`${prefix}bench_`)),
    `${prefix}bench_baseline`,
    `${prefix}bench_prisma`,
  ];
}
