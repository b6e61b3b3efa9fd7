import { randomBytes, randomUUID } from "node:crypto";
import { createPeerClient } from "@tawsil/rpc";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createWebhookDatabase, queueChange, startHarness, startReceiver, verify, type Harness, type TestReceiver } from "./support";

/**
 * The secret-sealing key rotated with deliveries going on, as deploy/README.md's procedure does it:
 * replicas on the old key with the next one to open (publish), then replicas on the new key beside
 * them (switch, mid-rollout), each opening what the other sealed; the background re-seal moves every
 * secret to the new key and says when none is left; then a replica with the new key alone (retire)
 * opens and signs for every endpoint.
 */
const OLD = randomBytes(32).toString("base64");
const NEW = randomBytes(32).toString("base64");
let db: TestDatabase;
let receiver: TestReceiver;
const harnesses: Harness[] = [];

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "sealing_key");
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const h of harnesses) await h.close();
  await receiver?.close();
  await db?.drop();
});

async function replica(env: Record<string, string>): Promise<Harness> {
  const harness = await startHarness(db.url, { engine: false, env: { WEBHOOK_IDLE_MS: "50", WEBHOOK_RESEAL_BATCH_SIZE: "4", ...env } });
  harnesses.push(harness);
  return harness;
}

describe("rotating the webhook secret-sealing key", () => {
  it("keeps every delivery signed with its endpoint's secret through publish, switch and retire, and re-seals every secret under the new key", async () => {
    const secrets = new Map<string, string>();
    const register = async (h: Harness) => {
      const merchantId = randomUUID();
      const client = createPeerClient(WebhookService, h.service.url, { timeoutMs: 30_000 });
      const registered = await client.registerEndpoint({ merchantId, url: receiver.url });
      secrets.set(merchantId, registered.signingSecret);
      return merchantId;
    };
    /** Queues one change per merchant and lets `h` deliver them; every request must verify with its merchant's secret. */
    const deliverAll = async (h: Harness) => {
      const sent = receiver.requests.length;
      const merchantOf = new Map<string, string>();
      for (const merchantId of secrets.keys()) merchantOf.set(await queueChange(h.service, { merchantId, status: "CREATED" }, new Date()), merchantId);
      while ((await h.service.parts.engine.runOnce()) > 0) {
        // until nothing due is left
      }
      const requests = receiver.requests.slice(sent);
      expect(requests).toHaveLength(secrets.size);
      for (const request of requests) {
        const shipmentId = [...merchantOf.keys()].find((id) => request.body.includes(id))!;
        expect(() => verify(secrets.get(merchantOf.get(shipmentId)!)!, request)).not.toThrow();
      }
    };

    // Before: the old key alone; ten merchants, one of them with a rotated secret (a previous one kept).
    const before = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: OLD });
    for (let i = 0; i < 10; i++) await register(before);
    const rotated = [...secrets.keys()][0]!;
    const rotation = await createPeerClient(WebhookService, before.service.url, { timeoutMs: 30_000 }).rotateSecret({ merchantId: rotated, expectedVersion: 0n });
    secrets.set(rotated, rotation.signingSecret);
    await deliverAll(before);

    // 1. publish: still sealing under the old key, opening with the new one too.
    const published = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: OLD, WEBHOOK_SECRET_DECRYPTION_KEYS: NEW });
    await before.close();
    // 2. switch, mid-rollout: a replica sealing under the new key beside one still on the old.
    const switched = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: NEW, WEBHOOK_SECRET_DECRYPTION_KEYS: OLD });
    for (let i = 0; i < 3; i++) await register(switched);
    await register(published);
    await deliverAll(published);
    await deliverAll(switched);

    // The background re-seal, on the new key's replicas once the rollout is done: batches of 4 until none is left.
    await published.close();
    expect(await switched.service.parts.resealer.countLeft()).toBe(11);
    expect(await switched.service.parts.resealer.run()).toBe(0);
    expect(switched.logLines.some((line) => line.includes("every webhook secret is sealed under WEBHOOK_SECRET_ENCRYPTION_KEY"))).toBe(true);
    expect(await switched.service.parts.metrics.registry.getSingleMetricAsString("webhook_secrets_sealed_under_other_keys")).toMatch(/ 0$/m);

    // 3. retire: the new key alone opens every secret, the rotated merchant's previous one included.
    const retired = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: NEW });
    await switched.close();
    await deliverAll(retired);
    const rows = await retired.service.parts.database.client.$queryRawUnsafe<{ previous: boolean }[]>(`SELECT previous_secret_sealed IS NOT NULL AS previous FROM webhook_endpoint`);
    expect(rows.filter((row) => row.previous)).toHaveLength(1);
  }, 120_000);
});
