import type { Client } from "@connectrpc/connect";
import type { Endpoint } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import { EndpointStatus } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import type { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validateBody } from "../validation/validate";
import { webhookProblem } from "./errors";
import { ifMatchVersion } from "./if-match";
import { etagOfEndpoint, eventTypesToProto, renderEndpoint } from "./render";
import { registerBody, updateBody } from "./schemas";
import { resource } from "../routes/route-table";

const PATH = "/v2/external/webhook";

/** The answer carrying the endpoint (and, on registration and rotation, the secret shown once). */
function send(reply: FastifyReply, status: number, endpoint: Endpoint | undefined, signingSecret?: string): FastifyReply {
  if (!endpoint) throw new Error("the webhook service answered without an endpoint");
  void reply.code(status).header("etag", etagOfEndpoint(endpoint));
  if (signingSecret === undefined) return reply.send(renderEndpoint(endpoint));
  return reply.header("cache-control", "no-store").send({ ...renderEndpoint(endpoint), signingSecret });
}

/** Runs a call to the webhook service, its outcomes mapped to the contract's problems. */
async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw webhookProblem(error);
  }
}

const merchantOf = (request: FastifyRequest) => request.principal!.merchantId;

/**
 * The merchant's single webhook (delivery-api.md Webhook management, decisions.md section 11), all
 * under webhooks:manage: register, read, change and delete, and rotate the secret.
 */
export function registerWebhook(app: FastifyInstance, webhooks: Client<typeof WebhookService>): void {
  const guard = app.guard("webhooks:manage");
  resource(app, PATH, {
    POST: {
      onRequest: guard,
      handler: async (request, reply) => {
        const body = validateBody(registerBody, request.body);
        const answer = await calling(() => webhooks.registerEndpoint({ merchantId: merchantOf(request), url: body.url, eventTypes: eventTypesToProto(body.events ?? []) }));
        return send(reply, 201, answer.endpoint, answer.signingSecret);
      },
    },
    GET: {
      onRequest: guard,
      handler: async (request, reply) => send(reply, 200, (await calling(() => webhooks.getEndpoint({ merchantId: merchantOf(request) }))).endpoint),
    },
    PATCH: {
      onRequest: guard,
      handler: async (request, reply) => {
        const expectedVersion = ifMatchVersion(request);
        const body = validateBody(updateBody, request.body);
        const answer = await calling(() =>
          webhooks.updateEndpoint({
            merchantId: merchantOf(request),
            expectedVersion,
            ...(body.url === undefined ? {} : { url: body.url }),
            ...(body.status === undefined ? {} : { status: body.status === "PAUSED" ? EndpointStatus.PAUSED : EndpointStatus.ACTIVE }),
            ...(body.events === undefined ? {} : { eventTypes: { eventTypes: eventTypesToProto(body.events) } }),
          }),
        );
        return send(reply, 200, answer.endpoint);
      },
    },
    DELETE: {
      onRequest: guard,
      handler: async (request, reply) => {
        const expectedVersion = ifMatchVersion(request);
        await calling(() => webhooks.deleteEndpoint({ merchantId: merchantOf(request), expectedVersion }));
        return reply.code(204).send();
      },
    },
  });
  resource(app, `${PATH}/rotate-secret`, {
    POST: {
      onRequest: guard,
      handler: async (request, reply) => {
        const expectedVersion = ifMatchVersion(request);
        const answer = await calling(() => webhooks.rotateSecret({ merchantId: merchantOf(request), expectedVersion }));
        return send(reply, 200, answer.endpoint, answer.signingSecret);
      },
    },
  });
}
