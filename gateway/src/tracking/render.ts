import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import {
  LocationStatus,
  type DriverPosition,
  type Estimates,
  type GetPublicTrackingResponse,
  type GetShipmentTrackingResponse,
} from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { PUBLIC_NAMES, STATE_NAMES } from "../shipments/render";

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);
const degrees = (micro: number): number => Number((micro / 1e6).toFixed(6));

/** The contract's six names; UNSPECIFIED never leaves the tracking service. */
export function locationStatusName(status: LocationStatus): string | null {
  return status === LocationStatus.UNSPECIFIED ? null : LocationStatus[status];
}

function driverLocation(p: DriverPosition | undefined) {
  if (!p?.position) return null;
  return {
    latitude: degrees(p.position.latitudeMicro),
    longitude: degrees(p.position.longitudeMicro),
    accuracyMetres: p.accuracyMetres,
    recordedAt: iso(p.recordTime),
    stale: p.stale,
    ageSeconds: Number(p.ageSeconds),
  };
}

/** Additive fields beyond the contract: null when there is no basis for an estimate. */
function estimates(e: Estimates | undefined) {
  return { estimatedPickupAt: iso(e?.pickupTime), estimatedDeliveryAt: iso(e?.deliveryTime) };
}

/** The authenticated tracking projection. */
export function renderMerchantTracking(t: GetShipmentTrackingResponse) {
  return {
    shipmentId: t.shipmentId,
    lifecycleState: STATE_NAMES[t.lifecycleState],
    locationStatus: locationStatusName(t.locationStatus),
    recommendedRefreshSeconds: t.recommendedRefreshSeconds,
    driverLocation: driverLocation(t.driverLocation),
    ...estimates(t.estimates),
  };
}

/** The public tracking projection: coarse position only, no identity, no endpoint. */
export function renderPublicTracking(t: GetPublicTrackingResponse) {
  return {
    status: PUBLIC_NAMES[t.status],
    locationStatus: locationStatusName(t.locationStatus),
    recommendedRefreshSeconds: t.recommendedRefreshSeconds,
    history: t.history.map((h) => ({ status: PUBLIC_NAMES[h.status], at: iso(h.occurTime) })),
    driverLocation: driverLocation(t.driverLocation),
    ...estimates(t.estimates),
  };
}
