import type { ServiceImpl } from "@connectrpc/connect";
import type { DomainError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { RotationLimitedSchema, type WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { ManageEndpoint } from "../app/manage-endpoint";
import { EndpointUrlError, RotationLimitedError } from "../domain/errors";
import { endpointMessage, eventTypesFromProto, statusFromProto } from "./messages";

/** The details that travel beside a reason: the url's violation, the rotation quota. */
function details(error: DomainError) {
  if (error instanceof EndpointUrlError) {
    return [{ desc: FieldViolationsSchema, value: { violations: [{ field: "url", code: error.violation.code, params: { rule: error.violation.rule } }] } }];
  }
  if (error instanceof RotationLimitedError) {
    return [{ desc: RotationLimitedSchema, value: { retryAfterSeconds: error.retryAfterSeconds, quota: error.quota, windowSeconds: error.windowSeconds, remaining: 0 } }];
  }
  return [];
}

/** What the gateway calls. Maps and delegates. */
export function webhookService(deps: { manage: ManageEndpoint; logger: Logger }): ServiceImpl<typeof WebhookService> {
  const { manage } = deps;
  return withDomainErrors(
    {
      async registerEndpoint(req) {
        const { endpoint, secret } = await manage.register(req.merchantId, req.url, eventTypesFromProto(req.eventTypes));
        return { endpoint: endpointMessage(endpoint), signingSecret: secret };
      },
      async getEndpoint(req) {
        return { endpoint: endpointMessage(await manage.get(req.merchantId)) };
      },
      async updateEndpoint(req) {
        const status = statusFromProto(req.status);
        const endpoint = await manage.update(req.merchantId, req.expectedVersion, {
          ...(req.url === undefined ? {} : { url: req.url }),
          ...(status === undefined ? {} : { status }),
          ...(req.eventTypes ? { eventTypes: eventTypesFromProto(req.eventTypes.eventTypes) } : {}),
        });
        return { endpoint: endpointMessage(endpoint) };
      },
      async deleteEndpoint(req) {
        await manage.remove(req.merchantId, req.expectedVersion);
        return {};
      },
      async rotateSecret(req) {
        const { endpoint, secret } = await manage.rotate(req.merchantId, req.expectedVersion);
        return { endpoint: endpointMessage(endpoint), signingSecret: secret };
      },
    },
    { logger: deps.logger, details },
  );
}
