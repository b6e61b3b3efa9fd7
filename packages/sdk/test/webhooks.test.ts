import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { TawsilWebhookVerificationError, verifyWebhook } from "../src/index";

const secretOf = (byte: number) => `whsec_${Buffer.alloc(32, byte).toString("base64")}`;
const oldSecret = secretOf(1);
const newSecret = secretOf(2);
const event = { id: "msg_1", type: "shipment.created", timestamp: "2026-05-04T09:15:00.000Z", sequence: 1, data: { shipmentId: "0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b", reference: "ORD-1", status: "CREATED", occurredAt: "2026-05-04T09:15:00.000Z", trackingUrl: "/t/x" } };
const payload = JSON.stringify(event);

/** A delivery signed as the webhook service signs it: one signature per valid secret. */
function delivery(secrets: string[], at = new Date()) {
  const signatures = secrets.map((secret) => new Webhook(secret).sign("msg_1", at, payload));
  return { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signatures.join(" ") };
}

describe("verifyWebhook", () => {
  it("returns the typed event of a delivery signed with the secret, from Node or Fetch headers", () => {
    expect(verifyWebhook({ payload, headers: delivery([newSecret]), secret: newSecret })).toEqual(event);
    expect(verifyWebhook({ payload: Buffer.from(payload), headers: new Headers(delivery([newSecret])), secret: newSecret }).data.status).toBe("CREATED");
  });

  it("accepts the previous secret during a rotation, whichever the receiver still holds", () => {
    const rotating = delivery([newSecret, oldSecret]);
    expect(verifyWebhook({ payload, headers: rotating, secret: oldSecret }).id).toBe("msg_1");
    expect(verifyWebhook({ payload, headers: delivery([newSecret]), secret: [oldSecret, newSecret] }).id).toBe("msg_1");
  });

  it("refuses a changed body, another secret, an old timestamp or a missing header", () => {
    const headers = delivery([newSecret]);
    expect(() => verifyWebhook({ payload: payload.replace("ORD-1", "ORD-2"), headers, secret: newSecret })).toThrow(TawsilWebhookVerificationError);
    expect(() => verifyWebhook({ payload, headers, secret: oldSecret })).toThrow(TawsilWebhookVerificationError);
    expect(() => verifyWebhook({ payload, headers: delivery([newSecret], new Date(Date.now() - 10 * 60_000)), secret: newSecret })).toThrow(TawsilWebhookVerificationError);
    expect(() => verifyWebhook({ payload, headers: { ...headers, "webhook-signature": undefined }, secret: newSecret })).toThrow(/missing header webhook-signature/);
  });
});
