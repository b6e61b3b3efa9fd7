import { parseArgs } from "node:util";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { ShipmentState, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { isUuid } from "@tawsil/domain";
import { createPeerClient } from "@tawsil/rpc";

export type ShipmentAdminClient = Client<typeof ShipmentAdminService>;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A merchant's id from its code (the merchant service's admin listener); ids pass as they are. */
  merchantIdOf?(code: string): Promise<string>;
}

export const SHIPMENT_HELP = [
  "Operates the shipment service through its admin listener: SHIPMENT_ADMIN_URL, else TAWSIL_SHIPMENT_ADMIN_URL",
  "of .dev/credentials.env; in a cluster, `kubectl port-forward deploy/shipment 7012` (a --merchant code is",
  "looked up through the merchant service's admin listener):",
  "  shipments pending   shipments waiting for an operator's approval, oldest first",
  "                        shipments pending [--merchant <merchant code or id>] [--limit <1..500>]",
  "  shipments approve   approve a PENDING_APPROVAL shipment (READY_FOR_DISPATCH)",
  "                        shipments approve <shipment id>",
  "  shipments reject    reject a PENDING_APPROVAL shipment (CANCELLED, REJECTED_BY_OPERATOR)",
  "                        shipments reject <shipment id>",
];

class UsageError extends Error {
  override readonly name = "UsageError";
}

function shipmentLine(shipment: Shipment): string {
  const created = shipment.createTime ? timestampDate(shipment.createTime).toISOString() : "-";
  const reason = shipment.reasonCode ? ` ${shipment.reasonCode}` : "";
  return `${shipment.shipmentId} ${shipment.shipmentNumber} ${ShipmentState[shipment.state]}${reason} v${shipment.version} merchant ${shipment.merchantId} ref ${shipment.externalReference} created ${created}`;
}

/** The one shipment id a decision names. */
function onlyId(positionals: readonly string[], verb: string): string {
  const [id, extra] = positionals;
  if (!id || extra !== undefined) throw new UsageError(`usage: ./tawsil shipments ${verb} <shipment id>`);
  return id;
}

/** The id of `--merchant`, given as a code (operators know merchants by code) or an id. */
async function merchantId(given: string | undefined, io: CliIo): Promise<string> {
  if (!given || isUuid(given)) return given ?? "";
  if (!io.merchantIdOf) throw new UsageError("--merchant takes a merchant id here (no merchant service to look the code up)");
  return io.merchantIdOf(given);
}

async function run(verb: string, rest: readonly string[], admin: ShipmentAdminClient, io: CliIo): Promise<void> {
  if (verb === "approve" || verb === "reject") {
    const { positionals } = parseArgs({ args: [...rest], options: {}, allowPositionals: true, strict: true });
    const shipmentId = onlyId(positionals, verb);
    const { shipment } = verb === "approve" ? await admin.approveShipment({ shipmentId }) : await admin.rejectShipment({ shipmentId });
    if (shipment) io.out(shipmentLine(shipment));
    return;
  }
  if (verb === "pending") {
    const { values, positionals } = parseArgs({ args: [...rest], options: { merchant: { type: "string" }, limit: { type: "string" } }, allowPositionals: true, strict: true });
    if (positionals.length > 0) throw new UsageError("usage: ./tawsil shipments pending [--merchant <merchant code or id>] [--limit <1..500>]");
    // 0 leaves the default to the service.
    const limit = values.limit === undefined ? 0 : Number(values.limit);
    if (values.limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500)) throw new UsageError("--limit must be a whole number from 1 to 500");
    const { shipments } = await admin.listPendingShipments({ merchantId: await merchantId(values.merchant, io), limit });
    if (shipments.length === 0) io.out("no shipment is waiting for approval");
    shipments.forEach((shipment) => io.out(shipmentLine(shipment)));
    return;
  }
  throw new UsageError(`unknown command "shipments ${verb}"; see \`./tawsil help\``);
}

/**
 * Runs `shipments <verb> ...` and returns the process exit code. Failures print one line (the
 * service's own message, never a stack) and give 1.
 */
export async function runShipmentCli(argv: readonly string[], io: CliIo, admin?: ShipmentAdminClient): Promise<number> {
  const [, verb = "", ...rest] = argv;
  const url = io.env.SHIPMENT_ADMIN_URL ?? "";
  try {
    // Never a fixed default port: it would be whichever checkout's `make dev` holds it.
    if (!url && !admin) throw new UsageError("SHIPMENT_ADMIN_URL is not set; see `./tawsil help`");
    await run(verb, rest, admin ?? createPeerClient(ShipmentAdminService, url, { timeoutMs: 10_000 }), io);
    return 0;
  } catch (error) {
    if (error instanceof ConnectError) {
      const where = error.code === Code.Unavailable || error.code === Code.DeadlineExceeded ? ` (shipment admin listener at ${url})` : "";
      // Unimplemented: the url reaches a shipment service, but its service port, not its admin listener.
      if (error.code === Code.Unimplemented) io.err(`tawsil: ${url} serves no admin RPCs; point SHIPMENT_ADMIN_URL at the shipment service's ADMIN_PORT`);
      else io.err(`tawsil: ${error.rawMessage}${where}`);
    } else {
      io.err(`tawsil: ${error instanceof Error ? error.message : String(error)}`);
    }
    return 1;
  }
}
