import { z } from "zod";
import { WEBHOOK_EVENT_TYPES as EVENT_TYPES, type WebhookEventType } from "@tawsil/domain";

export { EVENT_TYPES, type WebhookEventType };

/*
 * The URL's rules (scheme, length, userinfo, fragment, address) are the webhook service's: it
 * checks them at registration and again at every delivery, so they are written once, there.
 */
const events = z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length);

/** POST /v2/external/webhook: `{url, events?}` (decisions.md section 11). */
export const registerBody = z.strictObject({ url: z.string(), events: events.optional() });

/** PATCH /v2/external/webhook: any of url, status, events; at least one. */
export const updateBody = z
  .strictObject({ url: z.string().optional(), status: z.enum(["ACTIVE", "PAUSED"]).optional(), events: events.optional() })
  .refine((body) => body.url !== undefined || body.status !== undefined || body.events !== undefined, {
    params: { code: "REQUIRED" },
    message: "at least one of url, status, events",
  });
