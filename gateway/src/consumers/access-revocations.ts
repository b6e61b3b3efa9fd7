import { fromBinary } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { BroadcastConsumer, type createKafka } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import { AccessRevokedSchema } from "@tawsil/proto/tawsil/merchant/v1/events_pb";
import { Gauge, type Registry } from "prom-client";
import type { Revocations } from "../auth/revocations";
import { MERCHANT_EVENTS_TOPIC } from "@tawsil/topology";


/**
 * Every gateway replica hears every AccessRevoked of the merchant service (a broadcast group of
 * its own) and refuses the tokens it names from then on. A replica that starts (or rejoins) reads
 * back one token lifetime, so it knows every revocation that still matters. Nothing here counts
 * in readiness: without the broker the gateway serves on, and a revoked token lives until it
 * expires; token_revocation_feed_up (0) and the warnings logged say so.
 */
export function listenToAccessRevocations(opts: {
  kafka: ReturnType<typeof createKafka>;
  revocations: Revocations;
  lookbackMs: number;
  logger: Logger;
  registry: Registry;
}): BroadcastConsumer {
  const up = new Gauge({ name: "token_revocation_feed_up", help: "1 while this replica receives access revocations from Kafka, else 0.", registers: [opts.registry] });
  const log = opts.logger.child({ component: "access-revocations" });
  return new BroadcastConsumer({
    kafka: opts.kafka,
    groupPrefix: "gateway.access-revocations",
    topics: [MERCHANT_EVENTS_TOPIC],
    logger: opts.logger,
    replaySince: () => Date.now() - opts.lookbackMs,
    onStatus: (receiving) => {
      up.set(receiving ? 1 : 0);
      if (!receiving) log.warn("not receiving access revocations: revoked tokens stay valid here until they expire");
    },
    // Revocations are kept, not derived from a cache: a rejoin replays them instead (replaySince).
    onRejoin: () => undefined,
    onEvent: (event) => {
      if (event.type !== AccessRevokedSchema.typeName) return;
      const revoked = fromBinary(AccessRevokedSchema, event.payload);
      if (!revoked.revokeTime) return;
      opts.revocations.revoke(revoked.merchantId, revoked.clientId || undefined, timestampMs(revoked.revokeTime));
      log.info({ merchantId: revoked.merchantId, clientId: revoked.clientId || undefined }, "access revoked");
    },
  });
}
