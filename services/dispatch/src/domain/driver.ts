import type { Coordinate } from "@tawsil/domain";

/** A driver as dispatch sees them: on shift or not, carrying a shipment or free, and where. */
export interface Driver {
  readonly id: string;
  readonly carrierServiceId: string;
  readonly cityCode: string;
  readonly available: boolean;
  /** When the driver last became available or free: unresolved jobs retry with such drivers. */
  readonly availableSince: Date | null;
  readonly position: Coordinate | undefined;
  readonly currentShipmentId: string | null;
}

/** What a driver's progress report is, and the shipment step it asks for. */
export type Progress = "PICKED_UP" | "OUT_FOR_DELIVERY" | "DELIVERED" | "FAILED";

/** The steps dispatch asks of the shipment service, its only writer. */
export type ShipmentStep = "REOFFER" | "UNRESOLVED" | "ACCEPT" | "PICK_UP" | "START_LAST_LEG" | "DELIVER" | "FAIL";

export const STEP_OF_PROGRESS: Readonly<Record<Progress, ShipmentStep>> = {
  PICKED_UP: "PICK_UP",
  OUT_FOR_DELIVERY: "START_LAST_LEG",
  DELIVERED: "DELIVER",
  FAILED: "FAIL",
};

/** The last steps of a shipment: the driver is free again. */
export const finishes = (progress: Progress): boolean => progress === "DELIVERED" || progress === "FAILED";
