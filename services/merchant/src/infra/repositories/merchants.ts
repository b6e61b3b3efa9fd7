import type { Db } from "@tawsil/db";
import { AlreadyExistsError } from "@tawsil/errors";
import type { MerchantStatus } from "../../domain/merchant-status";
import type { Merchant, PrismaClient } from "../prisma/generated/client";
import { isUniqueViolation } from "../unique-violation";
import { isUuid } from "@tawsil/domain";

export type MerchantRow = Merchant;

export class MerchantRepository {
  constructor(private readonly db: Db<PrismaClient>) {}

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

  /** A malformed id finds nothing (the uuid column would reject it with an error instead). */
  async findById(id: string): Promise<MerchantRow | null> {
    if (!isUuid(id)) return null;
    return this.db.merchant.findUnique({ where: { id } });
  }

  /** Moves the merchant from `from` to `to`; null when its status is no longer `from` (a concurrent change). */
  async setStatus(id: string, from: MerchantStatus, to: MerchantStatus): Promise<MerchantRow | null> {
    const { count } = await this.db.merchant.updateMany({ where: { id, status: from }, data: { status: to } });
    return count === 0 ? null : this.db.merchant.findUnique({ where: { id } });
  }
}
