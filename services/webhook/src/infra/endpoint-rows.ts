import type { Endpoint } from "../domain/endpoint";
import type { EventType } from "../domain/event-types";
import type { WebhookEndpoint } from "./prisma/generated/client";
import type { SecretBox } from "./secret-box";

export function endpointFromRow(row: WebhookEndpoint, box: SecretBox): Endpoint {
  return {
    id: row.id,
    merchantId: row.merchantId,
    url: row.url,
    status: row.status,
    eventTypes: row.eventTypes as EventType[],
    version: row.version,
    secret: box.open(row.secretSealed, row.id),
    previousSecret: row.previousSecretSealed ? box.open(row.previousSecretSealed, row.id) : undefined,
    previousSecretValidUntil: row.previousSecretValidUntil ?? undefined,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function endpointToRow(endpoint: Endpoint, box: SecretBox) {
  return {
    id: endpoint.id,
    merchantId: endpoint.merchantId,
    url: endpoint.url,
    status: endpoint.status,
    eventTypes: [...endpoint.eventTypes],
    version: endpoint.version,
    secretSealed: box.seal(endpoint.secret, endpoint.id),
    previousSecretSealed: endpoint.previousSecret ? box.seal(endpoint.previousSecret, endpoint.id) : null,
    previousSecretValidUntil: endpoint.previousSecretValidUntil ?? null,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}
