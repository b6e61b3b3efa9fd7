import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { formatDegrees } from "@tawsil/domain";
import {
  MerchantStatus,
  type Branch,
  type Merchant,
  type OAuthClient,
  type RateCard,
  type SavedLocation,
} from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { CoordinateSchema } from "@tawsil/proto/tawsil/common/v1/geo_pb";

/** `label  value` lines, labels padded to one column. */
export function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}

export function merchantLines(merchant: Merchant | undefined): string[] {
  if (!merchant) return [];
  return table([
    ["code", merchant.code],
    ["merchant_id", merchant.merchantId],
    ["display_name", merchant.displayName],
    ["legal_name", merchant.legalName],
    ["status", MerchantStatus[merchant.status] ?? String(merchant.status)],
  ]);
}

/**
 * One line per merchant, in columns. A merchant without a rate card says what that means: nothing
 * can be priced for it, so its estimates and creates answer 422 until an operator adds one.
 */
export function merchantListLines(summaries: readonly { merchant?: Merchant; rateCardVersion: number }[]): string[] {
  const rows = summaries.flatMap(({ merchant, rateCardVersion }) =>
    merchant
      ? [[merchant.code, MerchantStatus[merchant.status] ?? String(merchant.status), rateCardVersion > 0 ? `rate card v${rateCardVersion}` : "no rate card (estimates and creates answer 422: add one with `rate-card add`)", merchant.merchantId, merchant.displayName]]
      : [],
  );
  if (rows.length === 0) return [];
  const widths = [0, 1, 3].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map(([code, status, card, id, name]) => `${code!.padEnd(widths[0]!)}  ${status!.padEnd(widths[1]!)}  ${id!.padEnd(widths[2]!)}  ${name}  ${card}`);
}

export function clientLines(client: OAuthClient | undefined, extra: readonly (readonly [string, string])[] = []): string[] {
  if (!client) return [];
  return table([
    ["client_id", client.clientId],
    ["merchant_id", client.merchantId],
    ["name", client.name],
    ["scopes", client.scopes.join(" ")],
    ["environment", client.environment],
    ["enabled", String(client.enabled)],
    ["created", client.createTime ? timestampDate(client.createTime).toISOString() : ""],
    ...extra,
  ]);
}

export function coordinateText(coordinate: MessageInitShape<typeof CoordinateSchema> | undefined): string {
  return coordinate ? `${formatDegrees(coordinate.latitudeMicro ?? 0)}, ${formatDegrees(coordinate.longitudeMicro ?? 0)}` : "";
}

export function locationLines(location: SavedLocation | undefined): string[] {
  if (!location) return [];
  return table([
    ["code", location.code],
    ["coordinate", coordinateText(location.coordinate)],
    ["address_line", location.addressLine],
    ["city_code", location.cityCode],
  ]);
}

export function branchLines(branch: Branch | undefined): string[] {
  return branch ? table([["code", branch.code], ["name", branch.name]]) : [];
}

export function rateCardLines(card: RateCard | undefined): string[] {
  if (!card) return [];
  const surcharges = card.requirementSurcharges.map((s) => `${s.requirement}=${s.fee}`).join(" ");
  return table([
    ["rate_card_id", card.rateCardId],
    ["version", String(card.version)],
    ["base_fee", card.baseFee],
    ["included_km", card.includedKm],
    ["per_km_fee", card.perKmFee],
    ["included_weight_kg", card.includedWeightKg],
    ["per_kg_fee", card.perKgFee],
    ["cod_fee_percent", card.codFeePercent],
    ["cod_fee_minimum", card.codFeeMinimum],
    ["max_cod_amount", card.maxCodAmount],
    ["surcharges", surcharges || "(none)"],
    ["effective", card.effectiveTime ? timestampDate(card.effectiveTime).toISOString() : ""],
  ]);
}
