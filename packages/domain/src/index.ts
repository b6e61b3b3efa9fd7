export { isRequirement, REQUIREMENTS, type Requirement } from "./requirements";
export { formatDegrees, parseCoordinate, type Coordinate } from "./coordinate";
export { isUuid } from "./uuid";
export { isShipmentState, PUBLIC_STATUSES, publicStatusOf, SHIPMENT_STATES, type PublicStatus, type ShipmentState } from "./shipment-states";
export { DRAFT_BOUNDS, ITEM_BOUNDS, MONEY_BOUNDS, stepOf } from "./shipment-bounds";
