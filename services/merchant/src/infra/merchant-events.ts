import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { writeOutbox, type SqlClient } from "@tawsil/events";
import { MerchantAspect, MerchantChangedSchema } from "@tawsil/proto/tawsil/merchant/v1/events_pb";

export const MERCHANT_TOPIC = "merchant.merchant.events.v1";
export const MERCHANT_CHANGED_TYPE = MerchantChangedSchema.typeName;

export type ChangedAspect = "STATUS" | "RATE_CARD" | "SAVED_LOCATIONS" | "BRANCHES";

/**
 * Announces, in the caller's transaction, that something other services cache about a merchant
 * changed; the relay publishes it once the change has committed, and caches drop the merchant.
 */
export async function announceMerchantChange(tx: SqlClient, merchantId: string, aspects: readonly ChangedAspect[], at = new Date()): Promise<void> {
  const payload = toBinary(
    MerchantChangedSchema,
    create(MerchantChangedSchema, { merchantId, aspects: aspects.map((aspect) => MerchantAspect[aspect]), occurTime: timestampFromDate(at) }),
  );
  await writeOutbox(tx, { topic: MERCHANT_TOPIC, key: merchantId, type: MERCHANT_CHANGED_TYPE, payload });
}
