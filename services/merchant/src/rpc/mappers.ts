import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  MerchantStatus as ProtoStatus,
  type BranchSchema,
  type JsonWebKeySchema,
  type MerchantSchema,
  type OAuthClientSchema,
  type RateCardSchema,
  type SavedLocationSchema,
} from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { BranchRow, SavedLocationRow } from "../app/places";
import type { ClientRow } from "../app/clients";
import type { MerchantRow } from "../app/merchants";
import type { RateCardRecord } from "../app/rate-cards";
import type { PublishedKey } from "../app/signing-key-ring";
import type { MerchantStatus } from "../domain/merchant-status";

const TO_PROTO: Record<MerchantStatus, ProtoStatus> = {
  DRAFT: ProtoStatus.DRAFT,
  ACTIVE: ProtoStatus.ACTIVE,
  SUSPENDED: ProtoStatus.SUSPENDED,
  TERMINATED: ProtoStatus.TERMINATED,
};

/** UNSPECIFIED and unknown numbers map to undefined, which the use case rejects. */
export function statusFromProto(status: ProtoStatus): MerchantStatus | undefined {
  return (Object.keys(TO_PROTO) as MerchantStatus[]).find((name) => TO_PROTO[name] === status);
}

export function merchantToProto(row: MerchantRow): MessageInitShape<typeof MerchantSchema> {
  return { merchantId: row.id, code: row.code, displayName: row.displayName, legalName: row.legalName, status: TO_PROTO[row.status] };
}

/** The client as operators see it; the row type has no secret hash, so none can leak here. */
export function clientToProto(row: ClientRow): MessageInitShape<typeof OAuthClientSchema> {
  return {
    clientId: row.clientId,
    merchantId: row.merchantId,
    name: row.name,
    scopes: row.scopes,
    enabled: row.enabled,
    environment: row.environment,
    createTime: timestampFromDate(row.createdAt),
  };
}

export function savedLocationToProto(row: SavedLocationRow): MessageInitShape<typeof SavedLocationSchema> {
  return {
    code: row.code,
    coordinate: { latitudeMicro: row.latitudeMicro, longitudeMicro: row.longitudeMicro },
    addressLine: row.addressLine,
    cityCode: row.cityCode,
  };
}

export function branchToProto(row: BranchRow): MessageInitShape<typeof BranchSchema> {
  return { code: row.code, name: row.name };
}

export function rateCardToProto(card: RateCardRecord): MessageInitShape<typeof RateCardSchema> {
  const { id, effectiveAt, requirementSurcharges, ...terms } = card;
  return { ...terms, rateCardId: id, requirementSurcharges: [...requirementSurcharges], effectiveTime: timestampFromDate(effectiveAt) };
}

export function jwkToProto(key: PublishedKey): MessageInitShape<typeof JsonWebKeySchema> {
  return { kid: key.kid, kty: key.kty, crv: key.crv, x: key.x, y: key.y, alg: "ES256", use: "sig" };
}
