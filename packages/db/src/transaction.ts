import type { ITXClientDenyList } from "@prisma/client/runtime/client";
import { DatabaseConnectionError } from "./failures";

/**
 * The client handed to an interactive transaction's callback: the same model delegates, minus
 * the connection-level methods. Identical to a generated `Prisma.TransactionClient`.
 */
export type TransactionClient<Client> = Omit<Client, ITXClientDenyList>;

/**
 * What repositories accept: the client itself or a transaction client. A repository typed with
 * `Db<PrismaClient>` runs standalone or inside a caller's transaction unchanged, which is how a
 * business write and its outbox row end up in one transaction.
 */
export type Db<Client> = Client | TransactionClient<Client>;

export type IsolationLevel = "ReadUncommitted" | "ReadCommitted" | "RepeatableRead" | "Serializable";

export interface TransactionOptions {
  /** Defaults to the database's (READ COMMITTED on PostgreSQL). */
  isolationLevel?: IsolationLevel;
  /** How long to wait for a connection to start the transaction (Prisma default 2 s). */
  maxWaitMs?: number;
  /** Rolls back and rejects if the callback runs longer (Prisma default 5 s). */
  timeoutMs?: number;
}

/** Structural shape of a generated client's interactive `$transaction`. */
interface InteractiveTransactions<Tx> {
  $transaction<R>(
    fn: (tx: Tx) => Promise<R>,
    options?: { maxWait?: number; timeout?: number; isolationLevel?: IsolationLevel },
  ): Promise<R>;
}

/**
 * Runs `fn` in one interactive transaction: it commits when `fn` resolves and rolls back when it
 * rejects (the rejection is passed through). Serializable callers must expect Prisma error P2034
 * (serialization failure) and decide themselves whether to retry.
 */
export async function withTransaction<Tx, R>(
  client: InteractiveTransactions<Tx>,
  fn: (tx: Tx) => Promise<R>,
  options: TransactionOptions = {},
): Promise<R> {
  let begun = false;
  try {
    return await client.$transaction(
      (tx) => {
        begun = true;
        return fn(tx);
      },
      {
        ...(options.isolationLevel === undefined ? {} : { isolationLevel: options.isolationLevel }),
        ...(options.maxWaitMs === undefined ? {} : { maxWait: options.maxWaitMs }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      },
    );
  } catch (error) {
    // Prisma's P2028 before the callback ran: no connection came within maxWait (a server that
    // accepts and never answers, a restart, a pool with none free). The database cannot serve
    // now: the same as a connect that failed, so callers answer 503 (issue 26).
    if (!begun && (error as { code?: unknown }).code === "P2028") throw new DatabaseConnectionError("08001", "no database connection to begin a transaction with", { cause: error });
    throw error;
  }
}

/**
 * A consumer's handler runs in one transaction per event (its writes and the processed-event
 * claim): 30 s to finish, 10 s to get a connection from a pool that request handlers share.
 */
export const CONSUMER_TRANSACTION: TransactionOptions = { timeoutMs: 30_000, maxWaitMs: 10_000 };

/** The outbox relay's transaction stays open while the broker acknowledges a batch: allow for broker retries. */
export const RELAY_TRANSACTION: TransactionOptions = { timeoutMs: 30_000 };
