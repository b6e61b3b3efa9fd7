import { withTransaction } from "@tawsil/db";
import type { Coordinate } from "@tawsil/domain";
import { AlreadyExistsError } from "@tawsil/errors";
import type { BranchRow, PlaceStore, SavedLocationRow } from "../../app/ports";
import type { PrismaClient } from "../prisma/generated/client";
import { announceMerchantChange } from "../merchant-events";
import { isUniqueViolation } from "../unique-violation";


/** A merchant's saved pickup locations and branches, each code unique per merchant. */
export class PlaceRepository implements PlaceStore {
  constructor(private readonly db: PrismaClient) {}

  async addSavedLocation(
    merchantId: string,
    input: { code: string; coordinate: Coordinate; addressLine: string; cityCode: string },
  ): Promise<SavedLocationRow> {
    const { code, coordinate, addressLine, cityCode } = input;
    try {
      return await withTransaction(this.db, async (tx) => {
        const row = await tx.savedLocation.create({
          data: { merchantId, code, addressLine, cityCode, latitudeMicro: coordinate.latitudeMicro, longitudeMicro: coordinate.longitudeMicro },
        });
        await announceMerchantChange(tx, merchantId, ["SAVED_LOCATIONS"]);
        return row;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExistsError("saved location", code);
      throw error;
    }
  }

  findSavedLocation(merchantId: string, code: string): Promise<SavedLocationRow | null> {
    return this.db.savedLocation.findUnique({ where: { merchantId_code: { merchantId, code } } });
  }

  listSavedLocations(merchantId: string): Promise<SavedLocationRow[]> {
    return this.db.savedLocation.findMany({ where: { merchantId }, orderBy: { code: "asc" } });
  }

  listBranches(merchantId: string): Promise<BranchRow[]> {
    return this.db.branch.findMany({ where: { merchantId }, orderBy: { code: "asc" } });
  }

  findBranch(merchantId: string, code: string): Promise<BranchRow | null> {
    return this.db.branch.findUnique({ where: { merchantId_code: { merchantId, code } } });
  }

  async addBranch(merchantId: string, input: { code: string; name: string }): Promise<BranchRow> {
    try {
      return await withTransaction(this.db, async (tx) => {
        const row = await tx.branch.create({ data: { merchantId, ...input } });
        await announceMerchantChange(tx, merchantId, ["BRANCHES"]);
        return row;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExistsError("branch", input.code);
      throw error;
    }
  }
}
