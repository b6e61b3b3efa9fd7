import { parseCoordinate, type Coordinate } from "@tawsil/domain";
import { NotFoundError } from "@tawsil/errors";
import { parseCityCode, parseCode, parseName } from "../domain/codes";
import type { BranchRow, PlaceStore, SavedLocationRow } from "./ports";
import type { Merchants } from "./merchants";

export type { BranchRow, SavedLocationRow };

/** A merchant's saved pickup locations and branches. */
export class Places {
  constructor(private readonly deps: { places: PlaceStore; merchants: Merchants }) {}

  async addSavedLocation(input: {
    merchantCode: string;
    code: string;
    coordinate?: Coordinate | undefined;
    addressLine: string;
    cityCode: string;
  }): Promise<SavedLocationRow> {
    const location = {
      code: parseCode("code", input.code),
      coordinate: parseCoordinate("coordinate", input.coordinate),
      addressLine: parseName("address_line", input.addressLine, 300),
      cityCode: parseCityCode("city_code", input.cityCode),
    };
    const merchant = await this.deps.merchants.byCode(input.merchantCode, "merchant_code");
    return this.deps.places.addSavedLocation(merchant.id, location);
  }

  async addBranch(input: { merchantCode: string; code: string; name: string }): Promise<BranchRow> {
    const branch = { code: parseCode("code", input.code), name: parseName("name", input.name) };
    const merchant = await this.deps.merchants.byCode(input.merchantCode, "merchant_code");
    return this.deps.places.addBranch(merchant.id, branch);
  }

  /** A saved location of the merchant, for shipment creation. */
  async savedLocation(merchantId: string, code: string): Promise<SavedLocationRow> {
    const merchant = await this.deps.merchants.byId(merchantId);
    const location = await this.deps.places.findSavedLocation(merchant.id, code);
    if (!location) throw new NotFoundError("saved location");
    return location;
  }

  /** A branch of the merchant, for shipment creation. */
  async branch(merchantId: string, code: string): Promise<BranchRow> {
    const merchant = await this.deps.merchants.byId(merchantId);
    const branch = await this.deps.places.findBranch(merchant.id, code);
    if (!branch) throw new NotFoundError("branch");
    return branch;
  }
}
