export { TawsilClient, type CreatedShipment, type ConditionalRead, type EndpointVersion, type IdempotentCallOptions, type TawsilClientOptions } from "./client.js";
export { TawsilDriverClient, type TawsilDriverClientOptions } from "./driver-client.js";
export type { CallOptions } from "./http.js";
export { TawsilOAuthError, TawsilProblemError, TawsilUnexpectedResponseError, TawsilWebhookVerificationError } from "./errors.js";
export { DEFAULT_RETRY_POLICY, type Clock, type RetryPolicy } from "./retry.js";
export { verifyWebhook, type VerifyWebhookOptions } from "./webhooks.js";
export type * from "./types.js";
export type { components, operations, paths } from "./generated/openapi.js";
