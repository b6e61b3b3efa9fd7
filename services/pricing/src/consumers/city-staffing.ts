import { BroadcastConsumer } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { ReadinessCheck } from "@tawsil/rpc";
import type { Admin, Kafka } from "kafkajs";
import type { StaffingIndex } from "../app/staffing-index";
import { decodeCityStaffing } from "./city-staffing-codec";
import { CITY_STAFFING_TOPIC } from "@tawsil/topology";

/** How long a caught-up replica's probe waits for the broker's end offsets (well within the probe's own deadline). */
const CAUGHT_UP_PATIENCE_MS = 300;

export interface CityStaffingFeed {
  readonly consumer: BroadcastConsumer;
  /** Ready once this replica has read the topic up to its end as of the check. */
  readonly readiness: ReadinessCheck;
  close(): Promise<void>;
}

/**
 * Feeds the staffing index from dispatch.city-staffing.v1. Every replica reads the whole topic
 * from its beginning in a group of its own (BroadcastConsumer: no shared offsets, nothing
 * committed), so a new replica rebuilds the index from the compacted log, and every replica sees
 * every change. The replica is ready only while it has read up to the end offsets the broker
 * reports at that moment: until then it would answer NO_ELIGIBLE_SERVICE for a city dispatch has
 * staffed. Each check asks the broker (a readiness probe, seconds apart), so a fleet dispatch has
 * just put on shift is known here before this replica says ready again. Once caught up, a broker
 * that cannot be asked leaves the replica ready: it serves the index it has (staffing changes
 * rarely), rather than every replica leaving the load balancer together during a broker outage.
 */
export function feedCityStaffing(kafka: Kafka, index: StaffingIndex, logger: Logger): CityStaffingFeed {
  const nextOffsets = new Map<number, bigint>();
  const consumer = new BroadcastConsumer({
    kafka,
    groupPrefix: "pricing.city-staffing",
    topics: [CITY_STAFFING_TOPIC],
    fromBeginning: true,
    logger,
    onEvent: (event) => {
      nextOffsets.set(event.partition, BigInt(event.offset) + 1n);
      const staffing = decodeCityStaffing(event.payload);
      index.apply(staffing.cityCode, staffing.services);
      logger.debug({ city: staffing.cityCode, services: staffing.services.length }, "city staffing applied");
    },
    // The replay after a rejoin overwrites every city with its last state: nothing to drop.
    onRejoin: () => undefined,
  });
  // One admin connection for the probes, opened by the first and again after one fails to open.
  let admin: Promise<Admin> | undefined;
  const connectAdmin = async () => {
    const connecting = kafka.admin();
    await connecting.connect();
    return connecting;
  };
  const endOffsets = async () => {
    admin ??= connectAdmin().catch((err: unknown) => {
      admin = undefined;
      throw err;
    });
    return (await admin).fetchTopicOffsets(CITY_STAFFING_TOPIC);
  };
  let caughtUp = false;
  const readiness: ReadinessCheck = {
    name: "city-staffing",
    check: async () => {
      let ends: Awaited<ReturnType<typeof endOffsets>>;
      try {
        // Once caught up, a broker that does not answer at once counts as away: kafkajs retries an
        // unreachable broker for longer than the probe's deadline, which would report not ready.
        ends = caughtUp ? await withinMs(endOffsets(), CAUGHT_UP_PATIENCE_MS) : await endOffsets();
      } catch (err) {
        if (caughtUp) return;
        throw err;
      }
      const behind = ends.filter((end) => BigInt(end.high) > BigInt(end.low) && (nextOffsets.get(end.partition) ?? 0n) < BigInt(end.high));
      if (behind.length > 0) throw new Error(`the city staffing is not read up to its end yet (${behind.length} partitions behind)`);
      caughtUp = true;
    },
  };
  return {
    consumer,
    readiness,
    async close() {
      await consumer.stop();
      await (await admin?.catch(() => undefined))?.disconnect();
    },
  };
}

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
