import { withTransaction } from "@tawsil/db";
import { VersionConflictError } from "@tawsil/errors";
import type { RateCardRecord, RateCardStore } from "../../app/ports";
import type { RateCardTerms, RequirementSurcharge } from "../../domain/rate-card";
import { announceMerchantChange } from "../merchant-events";
import type { PrismaClient, RateCard } from "../prisma/generated/client";

export class RateCardRepository implements RateCardStore {
  constructor(private readonly db: PrismaClient) {}

  /** The merchant's rate card in force: its highest version (a version applies from when it is added). */
  async current(merchantId: string): Promise<RateCardRecord | undefined> {
    const row = await this.db.rateCard.findFirst({ where: { merchantId }, orderBy: { version: "desc" } });
    return row ? toRecord(row) : undefined;
  }

  /**
   * Appends the merchant's next version. The merchant row is locked first, so concurrent additions
   * queue up and each gets the next number; `expectedVersion` (when given) turns the append into a
   * compare-and-set.
   */
  addNext(merchantId: string, terms: RateCardTerms, opts: { effectiveAt: Date; expectedVersion?: number }): Promise<RateCardRecord> {
    return withTransaction(this.db, async (tx) => {
      await tx.$queryRaw`SELECT id FROM merchant WHERE id = ${merchantId}::uuid FOR UPDATE`;
      const latest = await tx.rateCard.aggregate({ where: { merchantId }, _max: { version: true } });
      const version = (latest._max.version ?? 0) + 1;
      if (opts.expectedVersion !== undefined && opts.expectedVersion !== version) {
        throw new VersionConflictError(
          "RATE_CARD_VERSION_MISMATCH",
          `the next rate card version is ${version}, not ${opts.expectedVersion}`,
        );
      }
      const { requirementSurcharges, ...amounts } = terms;
      const row = await tx.rateCard.create({
        data: { merchantId, version, effectiveAt: opts.effectiveAt, ...amounts, requirementSurcharges: requirementSurcharges.map((s) => ({ ...s })) },
      });
      await announceMerchantChange(tx, merchantId, ["RATE_CARD"], opts.effectiveAt);
      return toRecord(row);
    });
  }
}

/** Column scales are fixed, so each decimal prints with exactly its column's decimals. */
function toRecord(row: RateCard): RateCardRecord {
  return {
    id: row.id,
    version: row.version,
    effectiveAt: row.effectiveAt,
    baseFee: row.baseFee.toFixed(2),
    includedKm: row.includedKm.toFixed(3),
    perKmFee: row.perKmFee.toFixed(2),
    includedWeightKg: row.includedWeightKg.toFixed(3),
    perKgFee: row.perKgFee.toFixed(2),
    codFeePercent: row.codFeePercent.toFixed(3),
    codFeeMinimum: row.codFeeMinimum.toFixed(2),
    maxCodAmount: row.maxCodAmount.toFixed(2),
    requirementSurcharges: row.requirementSurcharges as unknown as RequirementSurcharge[],
  };
}
