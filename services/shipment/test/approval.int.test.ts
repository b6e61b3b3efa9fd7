import { fromBinary } from "@bufbuild/protobuf";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { PublicStatus, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { createPeerClient } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runTawsil } from "../../../packages/testing/src/operator-cli";
import { runShipmentCli } from "../src/cli/run-cli";
import { Code, draft, failure, idempotency, query, startStack, type Stack } from "./support";

/**
 * Operators' approve and reject of shipments held back in PENDING_APPROVAL (decisions.md section
 * 2): a DRAFT merchant's creates in the sandbox. The gateway-level proof is tests/e2e/mesh.e2e.test.ts.
 */
let stack: Stack;
let admin: ReturnType<typeof createPeerClient<typeof ShipmentAdminService>>;
let draftMerchantId = "";
let otherDraftMerchantId = "";
let activeMerchantId = "";

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "approval");
  admin = createPeerClient(ShipmentAdminService, stack.shipment.adminUrl!, { timeoutMs: 30_000 });
  [draftMerchantId, otherDraftMerchantId, activeMerchantId] = await Promise.all([
    stack.newMerchant("DRAFTY", MerchantStatus.DRAFT),
    stack.newMerchant("DRAFTZ", MerchantStatus.DRAFT),
    stack.newMerchant("LIVE"),
  ]);
});

afterAll(async () => {
  await stack?.close();
});

async function create(reference: string, merchantId = draftMerchantId): Promise<string> {
  const body = draft(reference);
  const { shipment } = await stack.client.createShipment({ merchantId, idempotency: idempotency(reference, body), draft: body });
  return shipment?.shipmentId ?? "";
}

async function eventsOf(shipmentId: string) {
  const rows = await query<{ payload: Uint8Array }>(stack.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq", shipmentId);
  return rows.map((row) => fromBinary(ShipmentChangedSchema, row.payload));
}

const read = async (merchantId: string, shipmentId: string) => (await stack.client.getShipment({ merchantId, shipmentId })).shipment;

describe("ShipmentAdminService", () => {
  it("approves a held-back shipment: READY_FOR_DISPATCH, approved, version + 1, one event", async () => {
    const id = await create("HELD-APPROVE");
    const held = await read(draftMerchantId, id);
    expect(held).toMatchObject({ state: ShipmentState.PENDING_APPROVAL, version: 1n });
    expect(held?.approveTime).toBeUndefined();

    const { shipment } = await admin.approveShipment({ shipmentId: id });
    expect(shipment).toMatchObject({ state: ShipmentState.READY_FOR_DISPATCH, version: 2n, reasonCode: "" });
    expect(shipment?.approveTime).toBeDefined();
    expect(await read(draftMerchantId, id)).toMatchObject({ state: ShipmentState.READY_FOR_DISPATCH, version: 2n });
    const events = await eventsOf(id);
    expect(events.map((e) => [e.shipment?.state, e.previousState, e.shipment?.version, e.publicStatusChanged])).toEqual([
      [ShipmentState.PENDING_APPROVAL, ShipmentState.UNSPECIFIED, 1n, true],
      [ShipmentState.READY_FOR_DISPATCH, ShipmentState.PENDING_APPROVAL, 2n, false],
    ]);
  });

  it("rejects a held-back shipment: CANCELLED with REJECTED_BY_OPERATOR in the read and the event", async () => {
    const id = await create("HELD-REJECT");
    const { shipment } = await admin.rejectShipment({ shipmentId: id });
    expect(shipment).toMatchObject({ state: ShipmentState.CANCELLED, version: 2n, reasonCode: "REJECTED_BY_OPERATOR", publicStatus: PublicStatus.CANCELLED });
    expect(await read(draftMerchantId, id)).toMatchObject({ state: ShipmentState.CANCELLED, reasonCode: "REJECTED_BY_OPERATOR" });
    const last = (await eventsOf(id)).at(-1);
    expect(last).toMatchObject({ previousState: ShipmentState.PENDING_APPROVAL, publicStatusChanged: true, shipment: { state: ShipmentState.CANCELLED, version: 2n, reasonCode: "REJECTED_BY_OPERATOR" } });
  });

  it("refuses a second decision, or a decision on a shipment no operator holds, with SHIPMENT_NOT_PENDING_APPROVAL", async () => {
    const approved = await create("HELD-TWICE");
    await admin.approveShipment({ shipmentId: approved });
    const refused = { code: Code.FailedPrecondition, reason: "SHIPMENT_NOT_PENDING_APPROVAL" };
    expect(await failure(admin.approveShipment({ shipmentId: approved }))).toMatchObject({ ...refused, message: "the shipment is READY_FOR_DISPATCH, not PENDING_APPROVAL" });
    expect(await failure(admin.rejectShipment({ shipmentId: approved }))).toMatchObject(refused);
    const autoApproved = await create("LIVE-1", activeMerchantId);
    expect(await failure(admin.rejectShipment({ shipmentId: autoApproved }))).toMatchObject(refused);
    const rejected = await create("HELD-REJECTED");
    await admin.rejectShipment({ shipmentId: rejected });
    expect(await failure(admin.approveShipment({ shipmentId: rejected }))).toMatchObject({ ...refused, message: "the shipment is CANCELLED, not PENDING_APPROVAL" });
    // Nothing moved: one version per accepted decision only.
    expect((await read(draftMerchantId, approved))?.version).toBe(2n);
    expect((await eventsOf(rejected)).length).toBe(2);
  });

  it("answers an unknown or malformed id with SHIPMENT_NOT_FOUND", async () => {
    expect(await failure(admin.approveShipment({ shipmentId: "0193a000-0000-7000-8000-00000000dead" }))).toMatchObject({ code: Code.NotFound, reason: "SHIPMENT_NOT_FOUND" });
    expect(await failure(admin.rejectShipment({ shipmentId: "not-a-uuid" }))).toMatchObject({ code: Code.NotFound, reason: "SHIPMENT_NOT_FOUND" });
  });

  it("lists the waiting shipments oldest first, of every merchant or of one", async () => {
    const first = await create("QUEUE-1");
    const second = await create("QUEUE-2", otherDraftMerchantId);
    const third = await create("QUEUE-3");
    const all = (await admin.listPendingShipments({})).shipments.map((s) => s.shipmentId);
    expect(all.filter((id) => [first, second, third].includes(id))).toEqual([first, second, third]);
    expect((await admin.listPendingShipments({ merchantId: otherDraftMerchantId })).shipments.map((s) => s.shipmentId)).toEqual([second]);
    expect((await admin.listPendingShipments({ merchantId: draftMerchantId, limit: 1 })).shipments).toHaveLength(1);
    expect(await failure(admin.listPendingShipments({ limit: 501 }))).toMatchObject({ code: Code.InvalidArgument });
  });
});

describe("./tawsil shipments ...", () => {
  async function cli(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runShipmentCli(["shipments", ...argv], { out: (l) => out.push(l), err: (l) => err.push(l), env: { SHIPMENT_ADMIN_URL: stack.shipment.adminUrl! } });
    return { code, out, err };
  }

  it("lists a merchant's queue, approves and rejects, and refuses a second decision in one line", async () => {
    const approved = await create("CLI-APPROVE", otherDraftMerchantId);
    const rejected = await create("CLI-REJECT", otherDraftMerchantId);
    const pending = await cli("pending", "--merchant", otherDraftMerchantId);
    expect(pending.code).toBe(0);
    expect(pending.out.filter((line) => line.startsWith(approved) || line.startsWith(rejected))).toHaveLength(2);

    const approve = await cli("approve", approved);
    expect(approve).toMatchObject({ code: 0, err: [] });
    expect(approve.out[0]).toMatch(new RegExp(`^${approved} TWS-\\d{10} READY_FOR_DISPATCH v2 `));
    const reject = await cli("reject", rejected);
    expect(reject.out[0]).toMatch(new RegExp(`^${rejected} TWS-\\d{10} CANCELLED REJECTED_BY_OPERATOR v2 `));

    expect(await cli("approve", approved)).toEqual({ code: 1, out: [], err: ["tawsil: the shipment is READY_FOR_DISPATCH, not PENDING_APPROVAL"] });
    expect(await cli("reject")).toEqual({ code: 1, out: [], err: ["tawsil: usage: ./tawsil shipments reject <shipment id>"] });
    expect((await cli("pending", "--merchant", otherDraftMerchantId)).out.some((line) => line.startsWith(approved) || line.startsWith(rejected))).toBe(false);
  });

  it("names a merchant by code as well as by id (./tawsil looks the code up on the merchant service's admin listener)", async () => {
    const waiting = await create("CLI-BY-CODE", otherDraftMerchantId);
    const credentials = { TAWSIL_MERCHANT_ADMIN_URL: stack.merchant.adminUrl!, TAWSIL_SHIPMENT_ADMIN_URL: stack.shipment.adminUrl! };
    const byCode = await runTawsil(["shipments", "pending", "--merchant", "DRAFTZ"], credentials);
    expect(byCode).toMatchObject({ code: 0, err: [] });
    expect(byCode.out.some((line) => line.startsWith(waiting))).toBe(true);
    expect(byCode.out.every((line) => line.includes(`merchant ${otherDraftMerchantId} `))).toBe(true);
    const unknown = await runTawsil(["shipments", "pending", "--merchant", "NOBODY"], credentials);
    expect(unknown).toMatchObject({ code: 1, out: [] });
    expect(unknown.err).toEqual([`tawsil: merchant NOBODY: merchant not found (merchant admin listener at ${stack.merchant.adminUrl})`]);
  }, 120_000);
});
