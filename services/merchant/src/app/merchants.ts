import { NotFoundError, ValidationError, VersionConflictError } from "@tawsil/errors";
import { parseCode, parseName } from "../domain/codes";
import { assertStatusTransition, canAuthenticate, MERCHANT_STATUSES, type MerchantStatus } from "../domain/merchant-status";
import type { MerchantRow, MerchantStore } from "./ports";
import { revocationSecondPassed } from "./revocation-second";

export type { MerchantRow };

/** Merchant companies: onboarding, lookup and the status lifecycle. */
export class Merchants {
  constructor(private readonly merchants: MerchantStore) {}

  create(input: { code: string; displayName: string; legalName: string }): Promise<MerchantRow> {
    return this.merchants.create({
      code: parseCode("code", input.code),
      displayName: parseName("display_name", input.displayName),
      legalName: parseName("legal_name", input.legalName),
    });
  }

  async byCode(code: string, field = "code"): Promise<MerchantRow> {
    const merchant = await this.merchants.findByCode(parseCode(field, code));
    if (!merchant) throw new NotFoundError("merchant");
    return merchant;
  }

  /** Operators' list, by code; `limit` 0 means 200, at most 1000. */
  list(limit: number): Promise<(MerchantRow & { readonly rateCardVersion: number | null })[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000) throw new ValidationError("limit", "must be from 1 to 1000 (0: 200)");
    return this.merchants.list(limit === 0 ? 200 : limit);
  }

  /** Unknown and malformed ids alike are not found: an id is opaque to callers. */
  async byId(id: string): Promise<MerchantRow> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) throw new NotFoundError("merchant");
    return merchant;
  }

  async setStatus(code: string, status: string | undefined): Promise<MerchantRow> {
    if (!MERCHANT_STATUSES.includes(status as MerchantStatus)) {
      throw new ValidationError("status", `must be one of ${MERCHANT_STATUSES.join(", ")}`);
    }
    const target = status as MerchantStatus;
    const merchant = await this.byCode(code, "merchant_code");
    assertStatusTransition(merchant.status, target);
    if (merchant.status === target) return merchant;
    const updated = await this.merchants.setStatus(merchant.id, merchant.status, target);
    if (!updated) throw new VersionConflictError("MERCHANT_STATUS_CHANGED", "the merchant's status changed meanwhile; read it and retry");
    // A status whose clients cannot authenticate revoked their tokens (infra/repositories/merchants.ts).
    if (!canAuthenticate(target) && canAuthenticate(merchant.status)) await revocationSecondPassed();
    return updated;
  }
}
