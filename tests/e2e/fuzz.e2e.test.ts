import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TawsilClient } from "@tawsil/sdk";
import { openApiResponseCheck } from "@tawsil/testing";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { readOpenApiDocument } from "../../gateway/src/openapi/document";
import { putFleetOnShift } from "../../services/dispatch/test/support";
import { createAdminClient } from "../../services/merchant/src/cli/admin-client";
import { ARTEFACTS } from "./support/browser";
import { registerDriver } from "./support/drivers";
import { type FuzzContext, type FuzzRequest, generateRequest, kindsFor } from "./support/fuzz/generator";
import { judge } from "./support/fuzz/oracle";
import { operationsOf } from "./support/fuzz/operations";
import { Random } from "./support/fuzz/random";
import { differences, type Snapshot, snapshot } from "./support/fuzz/state";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Fuzzing from the OpenAPI document (issue 13): requests generated from every operation, valid and
 * mutated, against a real mesh as a real merchant. No answer may be a 5xx, undescribed by the
 * document, or a problem outside the catalogue; no refused request may change anything.
 * FUZZ_REQUESTS sets how many (1,500 in `make test`, 10,000 in `make fuzz`), FUZZ_SEED the seed.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 13_2026);
/** How often each operation is drawn: the merchant API far more than the documentation routes. */
const WEIGHTS: Record<string, number> = {
  createShipment: 8, cancelShipment: 5, listShipments: 6, getShipment: 4, estimateShipmentPrice: 4, getShipmentTracking: 3, getPublicTracking: 3,
  registerWebhook: 2, getWebhook: 1, updateWebhook: 3, deleteWebhook: 1, rotateWebhookSecret: 1, issueAccessToken: 4, getMerchantProfile: 2,
  createMediaAsset: 2, getMediaAsset: 2, uploadMediaAssetContent: 2, downloadMediaAsset: 1,
  // The driver API (issue 30). Its media routes wait for the shipment service's driver-owned
  // assets (issue 30's proof of delivery branch) before they are drawn.
  setDriverAvailability: 1, reportDriverLocations: 2, listDriverOffers: 1, acceptDriverOffer: 1, declineDriverOffer: 1, listDriverJobs: 1, reportDriverStep: 3,
  getJsonWebKeySet: 1, getOpenApiDocument: 0.5, getTrackingPage: 1, getTrackingPageStylesheet: 0.5, getReferencePage: 0.3, getReferenceRenderer: 0.1,
};

let testMesh: TestMesh;
let merchant: TawsilClient;
let other: TawsilClient;
let ctx: FuzzContext;
let own: string[];
const document = readOpenApiDocument();
const check = openApiResponseCheck(document);

interface Finding { operation: string; kind: string; change: string; method: string; path: string; status: number; errors: string[] }
const findings: Finding[] = [];
const counts = { perOperation: {} as Record<string, number>, perStatus: {} as Record<string, number>, perKind: {} as Record<string, number>, perOperationStatus: {} as Record<string, Record<string, number>>, mutations: { accepted: 0, refused: 0, refusedChangedState: 0 } as Record<string, number>, perMutationKind: {} as Record<string, Record<string, number>> };
const bump = (table: Record<string, number>, key: string) => void (table[key] = (table[key] ?? 0) + 1);

beforeAll(async () => {
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    // Per-client and token limits raised so 429s do not mask everything else; public tracking,
    // the failed-authentication lockout and secret rotation keep theirs (the rate-limit checks).
    env: { RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000", TOKEN_RATE_LIMIT_PER_MINUTE: "100000", TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "100000", TOKEN_GLOBAL_RATE_PER_SECOND: "100000", TOKEN_GLOBAL_BURST: "100000", DRIVER_RATE_LIMIT_PER_SECOND: "1000000", DRIVER_RATE_LIMIT_BURST: "1000000" },
    fleet: false,
    beforeStart: (urls) => putFleetOnShift(urls.dispatch, { cities: ["RUH"], busy: true }),
  });
  const { credentials } = testMesh;
  // A DRAFT merchant of its own: its shipments wait in PENDING_APPROVAL, which nothing but a
  // cancel changes, so any change to them is the fuzzer's doing.
  const admin = createAdminClient(testMesh.mesh.processes.find((p) => p.name === "merchant")!.adminUrl!);
  const code = `FUZZ-${SEED}`.slice(0, 20);
  await admin.createMerchant({ code, displayName: "Fuzz Store", legalName: "Fuzz Trading" });
  await admin.addRateCard({ merchantCode: code, terms: { baseFee: "15.00", includedKm: "10", perKmFee: "1.50", includedWeightKg: "5", perKgFee: "2.00", codFeePercent: "1.5", codFeeMinimum: "5.00", maxCodAmount: "5000.00", requirementSurcharges: [] }, expectedVersion: 1 });
  await admin.addSavedLocation({ merchantCode: code, code: "FUZZ-WH", coordinate: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 }, addressLine: "King Fahd Road, Riyadh", cityCode: "RUH" });
  const full = await admin.createClient({ merchantCode: code, name: "fuzz", scopes: ["shipments:read", "shipments:write", "webhooks:manage"] });
  const readOnly = await admin.createClient({ merchantCode: code, name: "fuzz read only", scopes: ["shipments:read"] });
  merchant = testMesh.sdkFor(full.client!.clientId, full.clientSecret);
  other = testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);

  const shipment = (reference: string, client = merchant, location = "FUZZ-WH") =>
    client.shipments.create({ reference, pickup: { savedLocationCode: location }, destination: { latitude: 24.774265, longitude: 46.738586 }, recipient: { name: "Huda", mobile: "0512345600" } });
  const target = (await shipment(`FUZZ-TARGET-${SEED}`)).shipment;
  const cancelled = (await shipment(`FUZZ-CANCELLED-${SEED}`)).shipment;
  await merchant.shipments.cancel(cancelled.id, { reason: "CUSTOMER_REQUEST" });
  const foreign = (await shipment(`FUZZ-FOREIGN-${SEED}`, other, credentials.TAWSIL_SAVED_LOCATION!)).shipment;
  const endpoint = await merchant.webhook.register({ url: "http://127.0.0.1:9/tawsil-hooks" });
  let webhookVersion: number | undefined = (await merchant.webhook.update(endpoint, { status: "PAUSED" })).version;
  const cursor = (await merchant.shipments.page({ limit: 1 })).page.nextCursor!;
  own = [target.id, cancelled.id];
  // Media: one asset of the fuzz merchant waiting for its bytes, and another merchant's.
  const mediaAsset = (await merchant.media.create({ purpose: "SHIPMENT_CREATION_EVIDENCE", contentType: "image/png", sizeBytes: 64 })).mediaAssetId;
  const foreignMediaAsset = (await other.media.create({ purpose: "SHIPMENT_CREATION_EVIDENCE", contentType: "image/png", sizeBytes: 64 })).mediaAssetId;
  ctx = {
    token: await merchant.accessToken(),
    readOnlyToken: await testMesh.tokenFor(readOnly.client!.clientId, readOnly.clientSecret),
    otherToken: await other.accessToken(),
    clientId: full.client!.clientId,
    clientSecret: full.clientSecret,
    savedLocation: "FUZZ-WH",
    targetShipment: target.id,
    cancelledShipment: cancelled.id,
    foreignShipment: foreign.id,
    mediaAsset,
    foreignMediaAsset,
    trackingCode: new URL(target.trackingUrl, testMesh.gatewayUrl).pathname.split("/t/")[1]!,
    cursor,
    webhookVersion: () => webhookVersion,
    driverToken: await fuzzDriverToken(),
  };
  trackWebhookVersion = (version) => (webhookVersion = version);
}, 240_000);

let trackWebhookVersion: (version: number | undefined) => void = () => {};

/**
 * A driver registered as an operator does (the CLI's code path): its token drives the driver
 * routes. In Jeddah, where no shipment of the run is: should a mutated request put it on shift, it
 * is offered nothing, so no shipment changes under the fuzzer's feet.
 */
async function fuzzDriverToken(): Promise<string> {
  const driver = await registerDriver(testMesh, { name: "Fuzz Driver", city: "JED", carrier: "SAQR", vehicle: "CAR" });
  return testMesh.tokenFor(driver.clientId, driver.clientSecret);
}

afterAll(async () => {
  await testMesh?.close();
});

async function send(req: FuzzRequest): Promise<{ status: number; errors: string[] } | undefined> {
  const url = `${testMesh.gatewayUrl}${req.path}`;
  let res;
  try {
    res = await request(url, { method: req.method as "GET", headers: req.headers.flat(), body: req.body });
  } catch (error) {
    // A request undici itself refuses to send (an illegal header value) never reached the gateway.
    if ((error as { code?: string }).code === "UND_ERR_INVALID_ARG") return undefined;
    return { status: 0, errors: [`transport: ${(error as Error).message}`] };
  }
  const body = Buffer.from(await res.body.arrayBuffer());
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) for (const v of [value].flat()) if (v !== undefined) headers.append(name, v);
  return { status: res.statusCode, errors: judge(check, { method: req.method, url }, { status: res.statusCode, headers, body }) };
}

function record(req: FuzzRequest, status: number, errors: string[]): void {
  bump(counts.perOperation, req.operation);
  bump(counts.perStatus, String(status));
  bump(counts.perKind, req.kind);
  bump((counts.perOperationStatus[req.operation] ??= {}), String(status));
  if (errors.length > 0) findings.push({ operation: req.operation, kind: req.kind, change: req.change, method: req.method, path: req.path.slice(0, 120), status, errors });
}

const read = (state: Snapshot) => trackWebhookVersion(state.webhook === null ? undefined : (JSON.parse(state.webhook) as { version: number }).version);

describe("fuzzing the gateway from its OpenAPI document", () => {
  it("keeps the rate limits that remain: public tracking per code and the failed-authentication lockout", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++) {
      const req: FuzzRequest = { operation: "getPublicTracking", kind: "rate-limit", change: "burst", method: "GET", path: `/v2/public/tracking/${ctx.trackingCode.split("").reverse().join("")}`, headers: [], body: undefined, mutating: false };
      const result = (await send(req))!;
      record(req, result.status, result.errors);
      statuses.push(result.status);
    }
    for (let i = 0; i < 7; i++) {
      const req: FuzzRequest = { operation: "issueAccessToken", kind: "rate-limit", change: "failed authentication", method: "POST", path: "/oauth/token", headers: [["authorization", `Basic ${Buffer.from(`fuzz-lockout-${SEED}:wrong`).toString("base64")}`], ["content-type", "application/x-www-form-urlencoded"]], body: Buffer.from("grant_type=client_credentials"), mutating: false };
      const result = (await send(req))!;
      record(req, result.status, result.errors);
      statuses.push(result.status);
    }
    expect(findings).toEqual([]);
    // At most 120 reads of one code a minute (an unknown code counts too), then 429 from there on.
    const tracking = statuses.slice(0, 125);
    expect(tracking).toContain(429);
    expect(tracking.filter((s) => s === 404).length).toBeLessThanOrEqual(120);
    expect(tracking.slice(tracking.indexOf(429))).toEqual(Array(125 - tracking.indexOf(429)).fill(429));
    // Five failed authentications lock the client id: the sixth and seventh are refused unread.
    expect(statuses.slice(125)).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it(`answers ${REQUESTS} generated requests without a 5xx, an undescribed answer, a problem outside the catalogue or a change by a refused request`, async () => {
    const random = new Random(SEED);
    console.log(`fuzz: seed ${SEED} (FUZZ_SEED overrides), ${REQUESTS} requests (FUZZ_REQUESTS)`);
    const operations = operationsOf(document).filter((op) => (WEIGHTS[op.id] ?? 0) > 0);
    const drawn = operations.flatMap((op) => Array.from({ length: Math.round((WEIGHTS[op.id] ?? 0) * 10) }, () => op));
    let baseline = await snapshot(merchant, other, own, ctx.foreignShipment);
    read(baseline);
    const startedAt = Date.now();
    // Counts requests the gateway received: one undici refuses to send (an illegal header) is drawn again.
    for (let n = 0, sent = 0; sent < REQUESTS; n++) {
      const op = random.pick(drawn);
      const kind = random.pick(kindsFor(op));
      const req = generateRequest(random, op, kind, ctx, n);
      const result = await send(req);
      if (!result) {
        bump(counts.perKind, "unsendable (not counted)");
        continue;
      }
      sent++;
      const errors = [...result.errors];
      if (req.mutating) {
        const accepted = result.status >= 200 && result.status < 300;
        bump((counts.perMutationKind[req.kind] ??= {}), accepted ? "accepted" : "refused");
        counts.mutations[accepted ? "accepted" : "refused"]!++;
        const after = await snapshot(merchant, other, own, ctx.foreignShipment);
        if (!accepted) {
          const changed = differences(baseline, after);
          if (changed.length > 0) counts.mutations.refusedChangedState!++;
          errors.push(...changed.map((c) => `refused with ${result.status} but changed: ${c}`));
        }
        baseline = after;
        read(after);
      }
      record(req, result.status, errors);
      if (sent % 1000 === 0) console.log(`fuzz: ${sent}/${REQUESTS} requests, ${findings.length} findings`);
    }
    const report = { seed: SEED, requests: REQUESTS, seconds: Math.round((Date.now() - startedAt) / 1000), ...counts, findings };
    mkdirSync(path.join(ARTEFACTS, "fuzz"), { recursive: true });
    writeFileSync(path.join(ARTEFACTS, "fuzz", "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`fuzz: seed ${SEED}, ${REQUESTS} requests in ${report.seconds} s; statuses ${JSON.stringify(counts.perStatus)}`);
    console.log(`fuzz: per operation ${JSON.stringify(counts.perOperation)}`);
    console.log(`fuzz: per kind ${JSON.stringify(counts.perKind)}`);
    console.log(`fuzz: per kind of mutation (writes: accepted or refused) ${JSON.stringify(counts.perMutationKind)}`);
    console.log(`fuzz: mutations ${JSON.stringify(counts.mutations)}; report in .artefacts/fuzz/report.json`);
    for (const finding of findings.slice(0, 30)) console.log(`fuzz finding: ${JSON.stringify(finding)}`);
    expect(findings).toEqual([]);
    // The generator reached the success paths too, not only refusals.
    expect(counts.mutations.accepted).toBeGreaterThan(0);
    expect(Object.keys(counts.perStatus)).toEqual(expect.arrayContaining(["200", "201", "400", "404", "422"]));
  }, 3_600_000);
});
