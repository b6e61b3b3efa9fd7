import { parseArgs } from "node:util";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DeadLetterAdminService, type ParkedEvent } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";

export type DeadLetterAdminClient = Client<typeof DeadLetterAdminService>;

/** The services whose consumers park events, each with its admin listener. */
export const DEAD_LETTER_SERVICES = ["dispatch", "tracking", "webhook"] as const;
export type DeadLetterService = (typeof DEAD_LETTER_SERVICES)[number];

export const adminUrlSetting = (service: DeadLetterService) => `${service.toUpperCase()}_ADMIN_URL`;

export const DEAD_LETTER_HELP = [
  "Operates a consumer's dead letters (events it parked) through the service's admin listener: DISPATCH_ADMIN_URL,",
  "TRACKING_ADMIN_URL or WEBHOOK_ADMIN_URL, else TAWSIL_<SERVICE>_ADMIN_URL of .dev/credentials.env; in a cluster,",
  "`kubectl port-forward deploy/<service> <7014|7015|7016>`:",
  "  dead-letters <service> list      parked events, oldest first (--all: replayed and discarded too) [--limit <1..500>]",
  "  dead-letters <service> show      one parked event with its payload (base64)        dead-letters <service> show <id>",
  "  dead-letters <service> replay    apply it once, then the events parked behind it, in order",
  "                                     dead-letters <service> replay <id>",
  "  dead-letters <service> discard   never apply it; the next of its key becomes the first",
  "                                     dead-letters <service> discard <id>",
];

export interface DeadLetterCliIo {
  out(line: string): void;
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

function line(event: ParkedEvent): string {
  const parked = event.parkTime ? timestampDate(event.parkTime).toISOString() : "-";
  const state = event.resolution ? `${event.resolution} ${event.resolveTime ? timestampDate(event.resolveTime).toISOString() : ""}`.trim() : "PARKED";
  return `${event.id} ${state} ${event.topic}[${event.partition}]@${event.offset} key ${event.key} ${event.type} event ${event.eventId} attempts ${event.attempts} parked ${parked}: ${event.error}`;
}

function onlyId(positionals: readonly string[], usage: string): string {
  const [id, extra] = positionals;
  if (!id || extra !== undefined) throw new UsageError(`usage: ./tawsil dead-letters ${usage} <id>`);
  return id;
}

async function run(service: string, verb: string, rest: readonly string[], admin: DeadLetterAdminClient, io: DeadLetterCliIo): Promise<void> {
  if (verb === "list") {
    const { values, positionals } = parseArgs({ args: [...rest], options: { all: { type: "boolean" }, limit: { type: "string" } }, allowPositionals: true, strict: true });
    if (positionals.length > 0) throw new UsageError(`usage: ./tawsil dead-letters ${service} list [--all] [--limit <1..500>]`);
    const limit = values.limit === undefined ? 0 : Number(values.limit);
    if (values.limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500)) throw new UsageError("--limit must be a whole number from 1 to 500");
    const { events } = await admin.listParkedEvents({ all: values.all === true, limit });
    if (events.length === 0) io.out(`no parked event in ${service}`);
    events.forEach((event) => io.out(line(event)));
    return;
  }
  const { positionals } = parseArgs({ args: [...rest], options: {}, allowPositionals: true, strict: true });
  if (verb === "show") {
    const { event } = await admin.getParkedEvent({ id: onlyId(positionals, `${service} show`) });
    if (event) io.out(`${line(event)}\npayload (base64): ${Buffer.from(event.payload).toString("base64")}`);
    return;
  }
  if (verb === "replay") {
    const result = await admin.replayParkedEvent({ id: onlyId(positionals, `${service} replay`) });
    result.applied.forEach((event) => io.out(line(event)));
    if (result.failedId) throw new Error(`parked event ${result.failedId} failed again and stays parked (with those behind it): ${result.failedError}`);
    return;
  }
  if (verb === "discard") {
    const { event } = await admin.discardParkedEvent({ id: onlyId(positionals, `${service} discard`) });
    if (event) io.out(line(event));
    return;
  }
  throw new UsageError(`unknown command "dead-letters ${service} ${verb}"; see \`./tawsil help\``);
}

/** Runs `dead-letters <service> <verb> ...`; returns the exit code. Failures print one line and give 1. */
export async function runDeadLetterCli(argv: readonly string[], io: DeadLetterCliIo, client?: DeadLetterAdminClient): Promise<number> {
  const [, service = "", verb = "", ...rest] = argv;
  const known = (DEAD_LETTER_SERVICES as readonly string[]).includes(service);
  const url = known ? (io.env[adminUrlSetting(service as DeadLetterService)] ?? "") : "";
  try {
    if (!known) throw new UsageError(`usage: ./tawsil dead-letters <${DEAD_LETTER_SERVICES.join("|")}> <list|show|replay|discard>`);
    if (!url && !client) throw new UsageError(`${adminUrlSetting(service as DeadLetterService)} is not set; see \`./tawsil help\``);
    await run(service, verb, rest, client ?? createPeerClient(DeadLetterAdminService, url, { timeoutMs: 60_000 }), io);
    return 0;
  } catch (error) {
    if (error instanceof ConnectError) {
      if (error.code === Code.Unimplemented) io.err(`tawsil: ${url} serves no dead-letter RPCs; point ${adminUrlSetting(service as DeadLetterService)} at the ${service} service's ADMIN_PORT`);
      else io.err(`tawsil: ${error.rawMessage}${error.code === Code.Unavailable || error.code === Code.DeadlineExceeded ? ` (${service} admin listener at ${url})` : ""}`);
    } else {
      io.err(`tawsil: ${error instanceof Error ? error.message : String(error)}`);
    }
    return 1;
  }
}
