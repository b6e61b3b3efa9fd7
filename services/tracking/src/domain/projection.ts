import type { Coordinate } from "@tawsil/domain";
import { COARSE_ACCURACY_METRES, coarsen } from "./coarse-position";
import { estimate, NO_ESTIMATES, toWholeMinute, type Estimates } from "./eta";
import { isCarried, publicStatusOf, type PublicStatus, type ShipmentState } from "./lifecycle";
import { publicReasonOf, type PublicReason } from "./public-reason";
import { ageSeconds, locationStatusOf, refreshSecondsOf, STALE_AFTER_SECONDS, type LocationStatus } from "./location-status";

/** The driver's last fix for a shipment, as dispatch reported it. */
export interface DriverFix {
  readonly position: Coordinate;
  readonly accuracyMetres: number;
  readonly recordedAt: Date;
}

/** Everything tracking knows of one shipment: its projection row, history and last fix. */
export interface TrackedShipment {
  readonly shipmentId: string;
  readonly merchantId: string;
  readonly state: ShipmentState;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly cityCode: string;
  /** When the shipment reached a terminal state; null while it moves (or when not known yet). */
  readonly terminalAt: Date | null;
  /** The merchant's or driver's code for a cancel or a failed delivery; never public as such. */
  readonly reasonCode: string | null;
  /** Public statuses reached, oldest first. */
  readonly history: readonly { readonly status: PublicStatus; readonly at: Date }[];
  /** The assigned driver's last fix, if any. */
  readonly fix: DriverFix | null;
}

export interface ShownPosition {
  readonly position: Coordinate;
  readonly accuracyMetres: number;
  readonly recordedAt: Date;
  readonly stale: boolean;
  readonly ageSeconds: number;
}

export interface MerchantTracking {
  readonly shipmentId: string;
  readonly lifecycleState: ShipmentState;
  readonly locationStatus: LocationStatus;
  readonly recommendedRefreshSeconds: number;
  readonly driverLocation: ShownPosition | null;
  readonly estimates: Estimates;
}

export interface PublicTracking {
  readonly status: PublicStatus;
  readonly locationStatus: LocationStatus;
  readonly recommendedRefreshSeconds: number;
  readonly history: readonly { readonly status: PublicStatus; readonly at: Date }[];
  readonly driverLocation: ShownPosition | null;
  readonly estimates: Estimates;
  readonly pickupArea: Coordinate;
  readonly destinationArea: Coordinate;
  /** Why a cancelled or failed delivery ended, in words a customer may read; null otherwise. */
  readonly reason: PublicReason | null;
}

function shown(fix: DriverFix, now: Date): Omit<ShownPosition, "position" | "accuracyMetres"> {
  const age = ageSeconds(fix.recordedAt, now);
  return { recordedAt: fix.recordedAt, stale: age >= STALE_AFTER_SECONDS, ageSeconds: age };
}

/** The merchant's view: exact position and device accuracy, only while AVAILABLE or STALE. */
export function merchantTracking(tracked: TrackedShipment, now: Date): MerchantTracking {
  const locationStatus = locationStatusOf(tracked.state, tracked.fix?.recordedAt ?? null, now);
  const live = tracked.fix && (locationStatus === "AVAILABLE" || locationStatus === "STALE");
  return {
    shipmentId: tracked.shipmentId,
    lifecycleState: tracked.state,
    locationStatus,
    recommendedRefreshSeconds: refreshSecondsOf(tracked.state, locationStatus),
    driverLocation: live ? { position: tracked.fix!.position, accuracyMetres: tracked.fix!.accuracyMetres, ...shown(tracked.fix!, now) } : null,
    estimates: estimatesOf(tracked, locationStatus),
  };
}

/**
 * The customer's view. A position is shown only while the parcel is carried, snapped to the grid
 * with the grid's radius as accuracy. Before pickup a driver's fix exists but is not the
 * customer's to see: the status then reads LOCATION_UNAVAILABLE, so that driverLocation is null
 * exactly when the status says there is nothing to draw. The estimates rest on what this view
 * shows and nothing more (decisions.md section 9).
 */
export function publicTracking(tracked: TrackedShipment, now: Date): PublicTracking {
  const exact = locationStatusOf(tracked.state, tracked.fix?.recordedAt ?? null, now);
  const live = exact === "AVAILABLE" || exact === "STALE";
  const cell = live && isCarried(tracked.state) && tracked.fix !== null ? coarsen(tracked.fix.position) : null;
  const locationStatus: LocationStatus = live && cell === null ? "LOCATION_UNAVAILABLE" : exact;
  const destinationArea = coarsen(tracked.destination);
  return {
    status: publicStatusOf(tracked.state),
    locationStatus,
    recommendedRefreshSeconds: refreshSecondsOf(tracked.state, locationStatus),
    history: tracked.history,
    driverLocation: cell ? { position: cell, accuracyMetres: COARSE_ACCURACY_METRES, ...shown(tracked.fix!, now) } : null,
    estimates: locationStatus === "AVAILABLE" && cell ? publicEstimates(tracked, cell, destinationArea) : NO_ESTIMATES,
    pickupArea: coarsen(tracked.pickup),
    destinationArea,
    reason: publicReasonOf(tracked.state, tracked.reasonCode),
  };
}

/** Estimates rest on a live fix only: a stale one is no basis. */
function estimatesOf(tracked: TrackedShipment, status: LocationStatus): Estimates {
  const liveFix = status === "AVAILABLE" && tracked.fix ? tracked.fix : null;
  return estimate({ state: tracked.state, cityCode: tracked.cityCode, pickup: tracked.pickup, destination: tracked.destination, liveFix });
}

/**
 * From the shown cell to the shown destination area, to the whole minute: two fixes in one cell
 * give the same answer, so the estimate says no more of the driver's distance than the cell does
 * (from the exact fix, `estimatedDeliveryAt - recordedAt` gave it to about 3 m). Only called while
 * the parcel is carried, so there is never a pickup estimate, nor one from a driver on the way to it.
 */
function publicEstimates(tracked: TrackedShipment, cell: Coordinate, destinationArea: Coordinate): Estimates {
  const basis = estimate({ state: tracked.state, cityCode: tracked.cityCode, pickup: tracked.pickup, destination: destinationArea, liveFix: { position: cell, recordedAt: tracked.fix!.recordedAt } });
  return { pickupAt: null, deliveryAt: basis.deliveryAt && toWholeMinute(basis.deliveryAt) };
}
