import { withTransaction } from "@tawsil/db";
import { AlreadyExistsError } from "@tawsil/errors";
import { canAuthenticate, type MerchantStatus } from "../../domain/merchant-status";
import type { MerchantRow, MerchantStore } from "../../app/ports";
import type { PrismaClient } from "../prisma/generated/client";
import { announceAccessRevoked, announceMerchantChange } from "../merchant-events";
import { isUniqueViolation } from "../unique-violation";
import { isUuid } from "@tawsil/domain";

export class MerchantRepository implements MerchantStore {
  constructor(private readonly db: PrismaClient) {}

  async create(input: { code: string; displayName: string; legalName: string }): Promise<MerchantRow> {
    try {
      return await this.db.merchant.create({ data: input });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExistsError("merchant", input.code);
      throw error;
    }
  }

  findByCode(code: string): Promise<MerchantRow | null> {
    return this.db.merchant.findUnique({ where: { code } });
  }

  async list(limit: number): Promise<(MerchantRow & { rateCardVersion: number | null })[]> {
    // The rate card in force is the highest version, as RateCardRepository.current reads it.
    const rows = await this.db.merchant.findMany({
      orderBy: { code: "asc" },
      take: limit,
      include: { rateCards: { orderBy: { version: "desc" }, take: 1, select: { version: true } } },
    });
    return rows.map(({ rateCards, ...merchant }) => ({ ...merchant, rateCardVersion: rateCards[0]?.version ?? null }));
  }

  /** A malformed id finds nothing (the uuid column would reject it with an error instead). */
  async findById(id: string): Promise<MerchantRow | null> {
    if (!isUuid(id)) return null;
    return this.db.merchant.findUnique({ where: { id } });
  }

  /**
   * Moves the merchant from `from` to `to`; null when its status is no longer `from` (a concurrent
   * change). The change is announced in the same transaction, so every cache hears of it; a
   * status whose clients cannot authenticate (terminated) also revokes every token they hold.
   */
  setStatus(id: string, from: MerchantStatus, to: MerchantStatus): Promise<MerchantRow | null> {
    return withTransaction(this.db, async (tx) => {
      const { count } = await tx.merchant.updateMany({ where: { id, status: from }, data: { status: to } });
      if (count === 0) return null;
      await announceMerchantChange(tx, id, ["STATUS"]);
      if (!canAuthenticate(to) && canAuthenticate(from)) await announceAccessRevoked(tx, id, undefined);
      return tx.merchant.findUnique({ where: { id } });
    });
  }
}
