import { withTransaction } from "@tawsil/db";
import type { PublicJwk, SigningKeyRow, SigningKeyStore, SigningKeyWriter } from "../../app/ports";
import type { PrismaClient, SigningKey } from "../prisma/generated/client";

/**
 * Advisory lock taken by every writer of signing keys: creating the first key and rotating are
 * serialized across replicas, so there is never more than one current key. (Prisma's migrate
 * lock is 72707369; this one differs.)
 */
const SIGNING_KEY_LOCK = 4_728_193_461;

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** Writes, only inside `SigningKeyRepository.exclusively`. */
class PrismaSigningKeyWriter implements SigningKeyWriter {
  constructor(private readonly tx: Tx) {}

  current(): Promise<SigningKeyRow | null> {
    return currentKey(this.tx);
  }

  async insert(key: { kid: string; publicJwk: PublicJwk; privateKeyEncrypted: Buffer }): Promise<SigningKeyRow> {
    const row = await this.tx.signingKey.create({
      data: { kid: key.kid, publicJwk: { ...key.publicJwk }, privateKeyEncrypted: new Uint8Array(key.privateKeyEncrypted) },
    });
    return toRow(row);
  }

  async retire(kid: string, retiredAt: Date, publishUntil: Date): Promise<void> {
    await this.tx.signingKey.update({ where: { kid }, data: { retiredAt, publishUntil } });
  }
}

export class SigningKeyRepository implements SigningKeyStore {
  constructor(private readonly db: PrismaClient) {}

  /** Runs `fn` in a transaction holding the signing-key lock; other writers wait for it. */
  exclusively<T>(fn: (writer: SigningKeyWriter) => Promise<T>): Promise<T> {
    return withTransaction(
      this.db,
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SIGNING_KEY_LOCK}::bigint)`;
        return fn(new PrismaSigningKeyWriter(tx));
      },
      { timeoutMs: 15_000, maxWaitMs: 5_000 },
    );
  }

  current(): Promise<SigningKeyRow | null> {
    return currentKey(this.db);
  }

  /** The current key and every retired key still inside its publication window, newest first. */
  async published(now: Date): Promise<SigningKeyRow[]> {
    const rows = await this.db.signingKey.findMany({
      where: { OR: [{ retiredAt: null }, { publishUntil: { gt: now } }] },
      orderBy: { createdAt: "desc" },
    });
    return rows.map(toRow);
  }
}

async function currentKey(db: PrismaClient | Tx): Promise<SigningKeyRow | null> {
  const row = await db.signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: "desc" } });
  return row ? toRow(row) : null;
}

function toRow(row: SigningKey): SigningKeyRow {
  return { ...row, publicJwk: row.publicJwk as unknown as PublicJwk };
}
