/**
 * A cursor deep into the bench merchant's shipments, as the shipment service would have issued
 * after a client walked that far: the keyset position of the row at `depth` (read from the
 * shipment database), signed with the shipment service's own cursor module and the bench's
 * CURSOR_SECRET. When the gateway refuses it (the cursor format changed), the cursor is found by
 * walking the pages through the API instead, for at most `walkSeconds`.
 */
import { encodeCursor } from "../../../services/shipment/src/domain/cursor";
import { call } from "../../../packages/testing/src/load/driver";
import { query } from "../../../packages/testing/src/seed/seed";

export interface DeepCursor {
  readonly cursor: string;
  /** Rows before the page the cursor opens. */
  readonly depth: number;
  readonly how: "signed" | "walked";
  /** Why the signed cursor was not used, when it was not. */
  readonly refused?: string;
}

export async function deepCursor(opts: {
  shipmentDbUrl: string;
  merchantId: string;
  cursorSecretBase64: string;
  depth: number;
  gateway: string;
  token: string;
  walkSeconds: number;
}): Promise<DeepCursor> {
  const [row] = await query<{ created_at: Date; id: string }>(
    opts.shipmentDbUrl,
    "SELECT created_at, id FROM shipment WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1",
    [opts.merchantId, opts.depth - 1],
  );
  const headers = { authorization: `Bearer ${opts.token}` };
  let refused = "no row at that depth";
  if (row) {
    const secret = new Uint8Array(Buffer.from(opts.cursorSecretBase64, "base64"));
    const cursor = encodeCursor(secret, { merchantId: opts.merchantId, state: null, externalReference: null }, { createdAt: row.created_at, id: row.id });
    // A busy mesh may time out (5xx): only a 4xx means the cursor itself was refused.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const page = await call(opts.gateway, { method: "GET", path: `/v2/external/shipments?cursor=${cursor}`, headers });
      if (page.status === 200) return { cursor, depth: opts.depth, how: "signed" };
      refused = `the gateway answered ${page.status} ${JSON.stringify(page.body).slice(0, 200)}`;
      if (page.status < 500) break;
    }
  }
  // Walk: 100 rows a page, through the contract only.
  let cursor = "";
  let depth = 0;
  const deadline = Date.now() + opts.walkSeconds * 1000;
  while (depth < opts.depth && Date.now() < deadline) {
    const page = await call(opts.gateway, { method: "GET", path: `/v2/external/shipments?limit=100${cursor ? `&cursor=${cursor}` : ""}`, headers });
    const body = page.body as { data?: unknown[]; page?: { nextCursor: string | null } };
    if (page.status !== 200 || !body.page?.nextCursor) break;
    cursor = body.page.nextCursor;
    depth += body.data?.length ?? 0;
  }
  if (!cursor) throw new Error("no deep cursor: the gateway refused the signed one and walking found no next page");
  return { cursor, depth, how: "walked", refused };
}
