import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { DeadLetterAdminService, ParkedEventSchema, type ParkedEvent as ParkedEventMessage } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { ParkedEventError, type DeadLetterAdmin, type ParkedEvent } from "./dead-letter-admin";
import type { SqlClient } from "./sql";

const DEFAULT_LIMIT = 100;

function message(parked: ParkedEvent, withPayload: boolean): ParkedEventMessage {
  return create(ParkedEventSchema, {
    id: parked.id,
    consumerGroup: parked.consumerGroup,
    eventId: parked.event.eventId,
    type: parked.event.type,
    topic: parked.event.topic,
    partition: parked.event.partition,
    offset: parked.event.offset,
    key: parked.event.key,
    ...(withPayload ? { payload: parked.event.payload } : {}),
    error: parked.error,
    attempts: parked.attempts,
    parkTime: timestampFromDate(parked.parkedAt),
    ...(parked.resolvedAt ? { resolveTime: timestampFromDate(parked.resolvedAt) } : {}),
    resolution: parked.resolution ?? "",
  });
}

/** NotFound, or FailedPrecondition for a resolved event or one waiting behind another; anything else passes through. */
async function mapped<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ParkedEventError) throw new ConnectError(err.message, err.reason === "NOT_FOUND" ? Code.NotFound : Code.FailedPrecondition);
    throw err;
  }
}

/** DeadLetterAdminService over a consumer's DeadLetterAdmin: maps and delegates. */
export function deadLetterAdminService<Tx extends SqlClient>(admin: DeadLetterAdmin<Tx>): ServiceImpl<typeof DeadLetterAdminService> {
  return {
    async listParkedEvents(req) {
      if (req.limit < 0 || req.limit > 500) throw new ConnectError("limit must be 1 to 500 (0: 100)", Code.InvalidArgument);
      const events = await admin.list({ all: req.all, limit: req.limit === 0 ? DEFAULT_LIMIT : req.limit });
      return { events: events.map((parked) => message(parked, false)) };
    },
    async getParkedEvent(req) {
      return { event: message(await mapped(() => admin.show(req.id)), true) };
    },
    async replayParkedEvent(req) {
      const result = await mapped(() => admin.replay(req.id));
      return { applied: result.applied.map((parked) => message(parked, false)), failedId: result.failed?.id ?? "", failedError: result.failed?.error ?? "" };
    },
    async discardParkedEvent(req) {
      return { event: message(await mapped(() => admin.discard(req.id)), false) };
    },
  };
}

/** The admin listener's routes and health names of a service whose only operators' RPCs are its dead letters. */
export function deadLetterAdminRoutes<Tx extends SqlClient>(admin: DeadLetterAdmin<Tx>): { routes: (router: ConnectRouter) => void; serviceNames: readonly string[] } {
  const impl = deadLetterAdminService(admin);
  return { routes: (router) => void router.service(DeadLetterAdminService, impl), serviceNames: [DeadLetterAdminService.typeName] };
}
