export { isRequirement, REQUIREMENTS, type Requirement } from "./requirements";
export { formatDegrees, parseCoordinate, type Coordinate } from "./coordinate";
export { isUuid } from "./uuid";
export { isShipmentState, PUBLIC_STATUSES, publicStatusOf, SHIPMENT_STATES, type PublicStatus, type ShipmentState } from "./shipment-states";
export { DRAFT_BOUNDS, ITEM_BOUNDS, MONEY_BOUNDS, stepOf } from "./shipment-bounds";
export { EARTH_RADIUS_METRES, haversineMetres } from "./great-circle";
export { SERVICE_LEVELS, type ServiceLevel } from "./service-levels";
export type { RateCardTerms, RequirementSurcharge } from "./rate-card-terms";
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhook-event-types";
