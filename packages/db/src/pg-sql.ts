import { sqltag, type Sql } from "@prisma/client/runtime/client";
import pg from "pg";
import { DatabaseConnectionError } from "./failures";
import type { IsolationLevel, TransactionOptions } from "./transaction";

/**
 * Raw SQL on the service's own pg pool, without Prisma's query interpreter in between (issue 34:
 * on the hot paths, Prisma's raw API cost 19-27% of shipment's, dispatch's, tracking's and
 * webhook's CPU in the create profile, for statements it only passes through). It answers the same calls as a Prisma
 * client's raw API (`$queryRawUnsafe`, `$executeRawUnsafe`, and `$queryRaw` / `$executeRaw` with a
 * tagged template or a `Prisma.sql` object), with the same values, so a port written against that
 * API runs on either unchanged; pg-sql.int.test.ts holds the two side by side, type by type:
 * - int8 comes back as a bigint, `timestamp` (no zone, Prisma's DateTime) as the UTC instant it
 *   stores and `date` as UTC midnight, as Prisma reads them; everything else as pg reads it
 *   (numbers, strings, Buffers for bytea, parsed json);
 * - a Date parameter is sent as its UTC instant (pg would send local time, which a `timestamp`
 *   column stores with the zone dropped), a bigint as its digits.
 * Prisma stays the schema, the migrations and the model API where a profile shows nothing.
 */
export interface RawSql {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRaw<T = unknown>(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<number>;
}

const builtins = pg.types.builtins;
const INT8_ARRAY = 1016;
const TIMESTAMP_ARRAY = 1115;
const DATE_ARRAY = 1182;
const TEXT_ARRAY = 1009;

const utcTimestamp = (text: string): Date => new Date(`${text.replace(" ", "T")}Z`);
const utcDate = (text: string): Date => new Date(`${text}T00:00:00Z`);
const arrayOf =
  <T>(element: (text: string) => T) =>
  (text: string): T[] =>
    (pg.types.getTypeParser(TEXT_ARRAY as never, "text")(text) as (string | null)[]).map((v) => (v === null ? (null as T) : element(v)));

const PARSERS: Record<number, (text: string) => unknown> = {
  [builtins.INT8]: (text) => BigInt(text),
  [INT8_ARRAY]: arrayOf((text) => BigInt(text)),
  [builtins.TIMESTAMP]: utcTimestamp,
  [TIMESTAMP_ARRAY]: arrayOf(utcTimestamp),
  [builtins.DATE]: utcDate,
  [DATE_ARRAY]: arrayOf(utcDate),
};

const TYPES = {
  getTypeParser: ((oid: number, format?: string) => (format !== "binary" && PARSERS[oid]) || pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

function parameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(parameter);
  return value;
}

/**
 * A tagged template's strings are an array; a `Prisma.sql` object (any generated client's: each
 * bundle may carry its own copy of the class) is not.
 */
const statementOf = (query: TemplateStringsArray | Sql, values: readonly unknown[]): Pick<Sql, "text" | "values"> =>
  Array.isArray(query) ? sqltag(query as TemplateStringsArray, ...(values as never[])) : (query as Sql);

/**
 * Each distinct statement text runs as a named prepared statement: node-postgres parses a name
 * once per connection and afterwards only binds and executes it, so PostgreSQL skips parsing and
 * analysis on every later run, and plans it once (generic plan) when that costs no more than
 * planning each run (plan_cache_mode auto). Names are per process and one-to-one with texts, so
 * any pooled connection can use them. The hot paths run a few dozen texts; a text built with data
 * in it (never done here, but possible) would make a name per value and a prepared statement per
 * connection each, hence the cap: beyond it, statements run unnamed as before.
 */
const MAX_NAMED_STATEMENTS = 500;
const statementNames = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `tawsil_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Something that runs one statement: the pool, or the connection a transaction holds. */
type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

class Statements implements RawSql {
  constructor(protected readonly queryable: Queryable) {}

  protected run(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    return this.queryable.query({ name: nameOf(text), text, values: values.map(parameter), types: TYPES });
  }

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.run(query, values)).rows as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.run(query, values)).rowCount ?? 0;
  }

  $queryRaw<T = unknown>(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<T> {
    const sql = statementOf(query, values);
    return this.$queryRawUnsafe<T>(sql.text, ...sql.values);
  }

  $executeRaw(query: TemplateStringsArray | Sql, ...values: unknown[]): Promise<number> {
    const sql = statementOf(query, values);
    return this.$executeRawUnsafe(sql.text, ...sql.values);
  }
}

const ISOLATION: Record<IsolationLevel, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

/** Thrown by a statement of a transaction that outlived its `timeoutMs`, and by the transaction itself. */
export class TransactionTimeoutError extends Error {
  override readonly name = "TransactionTimeoutError";
}

/** The statements of one open transaction, on the connection it holds. */
class TransactionStatements extends Statements {
  expired = false;

  protected override run(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (this.expired) return Promise.reject(new TransactionTimeoutError("the transaction ran past its time limit and was rolled back"));
    return super.run(text, values);
  }
}

/** The pool's raw SQL, and transactions on it. */
export class PgSql extends Statements {
  constructor(private readonly pool: pg.Pool) {
    super(pool);
  }

  /**
   * Runs `fn` in one transaction on one connection of the pool: COMMIT when it resolves, ROLLBACK
   * when it rejects (the rejection passes through). Like Prisma's interactive transactions it
   * gives up on a callback that runs past `timeoutMs`: its later statements fail and it rolls back.
   * Waiting for a connection is bounded by the pool's connection timeout, not `maxWaitMs`: Prisma's
   * wait took a connection from the same pool, so a longer maxWait never applied either. A wait or
   * a BEGIN that fails is the database being unavailable (08001), as withTransaction says for Prisma's.
   */
  async transaction<R>(fn: (tx: RawSql) => Promise<R>, options: TransactionOptions = {}): Promise<R> {
    const client = await this.pool.connect();
    const tx = new TransactionStatements(client);
    let broken: Error | undefined;
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => (tx.expired = true), options.timeoutMs);
    try {
      try {
        await client.query(options.isolationLevel ? `BEGIN ISOLATION LEVEL ${ISOLATION[options.isolationLevel]}` : "BEGIN");
      } catch (error) {
        broken = error as Error;
        throw new DatabaseConnectionError("08001", "no database connection to begin a transaction with", { cause: error });
      }
      let result: R;
      try {
        result = await fn(tx);
        if (tx.expired) throw new TransactionTimeoutError("the transaction ran past its time limit and was rolled back");
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackFailed: Error) => (broken = rollbackFailed));
        throw error;
      }
      try {
        await client.query("COMMIT");
      } catch (error) {
        broken = error as Error;
        throw error;
      }
      return result;
    } finally {
      if (timer) clearTimeout(timer);
      // A connection whose BEGIN, ROLLBACK or COMMIT failed is in an unknown state: drop it.
      client.release(broken);
    }
  }

  /** `fn => sql.transaction(fn, options)`: what consumers and relays take as `runInTransaction`. */
  runner(options: TransactionOptions): <R>(fn: (tx: RawSql) => Promise<R>) => Promise<R> {
    return (fn) => this.transaction(fn, options);
  }
}
