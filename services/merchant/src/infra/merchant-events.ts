import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { writeOutbox, type SqlClient } from "@tawsil/events";
import { AccessRevokedSchema, MerchantAspect, MerchantChangedSchema } from "@tawsil/proto/tawsil/merchant/v1/events_pb";
import { MERCHANT_EVENTS_TOPIC } from "@tawsil/topology";

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
  await writeOutbox(tx, { topic: MERCHANT_EVENTS_TOPIC, key: merchantId, type: MERCHANT_CHANGED_TYPE, payload });
}

/**
 * Announces, in the caller's transaction, that tokens already issued to one client (or, with no
 * client id, to every client of the merchant) must stop working: each gateway replica refuses
 * those issued until `at`, within seconds of the commit instead of at their expiry. A driver's
 * client has no merchant: merchantId is empty and the event is keyed by the driver (`key`).
 */
export async function announceAccessRevoked(tx: SqlClient, merchantId: string, clientId: string | undefined, at = new Date(), key = merchantId): Promise<void> {
  const payload = toBinary(AccessRevokedSchema, create(AccessRevokedSchema, { merchantId, clientId: clientId ?? "", revokeTime: timestampFromDate(at) }));
  await writeOutbox(tx, { topic: MERCHANT_EVENTS_TOPIC, key, type: AccessRevokedSchema.typeName, payload });
}
