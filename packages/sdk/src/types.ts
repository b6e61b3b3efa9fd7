/** The API's shapes, named; all of them come from the generated OpenAPI types. */
import type { components } from "./generated/openapi.js";

type Schemas = components["schemas"];

export type MerchantProfile = Schemas["MerchantProfile"];
export type PriceEstimateRequest = Schemas["PriceEstimateRequest"];
export type PriceEstimate = Schemas["PriceEstimate"];
export type CreateShipmentRequestA = Schemas["CreateShipmentRequestA"];
export type CreateShipmentRequestB = Schemas["CreateShipmentRequestB"];
export type CancelShipmentRequestA = Schemas["CancelShipmentRequestA"];
export type CancelShipmentRequestB = Schemas["CancelShipmentRequestB"];
export type ShipmentA = Schemas["ShipmentA"];
export type ShipmentB = Schemas["ShipmentB"];
export type ShipmentState = Schemas["ShipmentState"];
export type ShipmentPage = Schemas["ShipmentPage"];
export type MerchantTracking = Schemas["MerchantTracking"];
export type PublicTracking = Schemas["PublicTracking"];
export type RegisterWebhookRequest = Schemas["RegisterWebhookRequest"];
export type UpdateWebhookRequest = Schemas["UpdateWebhookRequest"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type ShipmentEvent = Schemas["ShipmentEvent"];
export type MediaAsset = Schemas["MediaAsset"];
export type CreateMediaAssetRequest = Schemas["CreateMediaAssetRequest"];
export type EventType = Schemas["EventType"];
export type DriverAvailabilityRequest = Schemas["DriverAvailabilityRequest"];
export type DriverAvailability = Schemas["DriverAvailability"];
export type DriverLocationFix = Schemas["DriverLocationFix"];
export type DriverOffer = Schemas["DriverOffer"];
export type DriverOfferDecision = Schemas["DriverOfferDecision"];
export type DriverJob = Schemas["DriverJob"];
export type DriverStepRequest = Schemas["DriverStepRequest"];
export type DriverStepResult = Schemas["DriverStepResult"];
export type CreateDriverMediaAssetRequest = Schemas["CreateDriverMediaAssetRequest"];
export type Problem = Schemas["Problem"];
export type Violation = Schemas["Violation"];
export type TokenResponse = Schemas["TokenResponse"];
export type OAuthErrorBody = Schemas["OAuthError"];

/** The list endpoint's filters; `cursor` is followed for you by `shipments.list`. */
export interface ListShipmentsQuery {
  state?: ShipmentState;
  externalReference?: string;
  limit?: number;
  cursor?: string;
}
