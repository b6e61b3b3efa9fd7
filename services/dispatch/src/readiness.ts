import type { ReadinessCheck } from "@tawsil/rpc";
import type { StaffingPublisher } from "./app/staffing-publisher";
import { CITY_STAFFING_TOPIC } from "@tawsil/topology";
import type { PrismaClient } from "./infra/prisma/generated/client";
import { unsentOnTopic } from "./infra/repositories/outbox-pending";

/*
 * Dispatch's readiness beyond its database: pricing prices only from what dispatch publishes of
 * each city's drivers on shift, so a replica is ready once its view is recorded (and, with a relay,
 * on the broker once).
 */

/**
 * Ready once what this replica sees of every city's staffing is in the outbox: pricing learns
 * eligibility only from it, so a fleet on shift that is not yet recorded is not a fleet pricing knows.
 */
export function staffingReadiness(staffing: StaffingPublisher): ReadinessCheck {
  return {
    name: "city-staffing",
    check: async () => {
      if (!staffing.upToDate()) throw new Error("the city staffing is not recorded yet");
    },
  };
}

/**
 * With a relay running, ready once the recorded staffing is on the broker too: pricing is ready
 * when it has read the topic to its end, so together they mean that a fleet on shift here is
 * known to pricing when both say ready (the first create after `make dev` finds a driver).
 * A start-up gate only: once relayed, a broker outage later leaves dispatch ready (its outbox
 * keeps the changes, the OutboxLag alert watches the relay), as for every service with an outbox.
 */
export function staffingRelayed(db: PrismaClient): ReadinessCheck {
  let relayedOnce = false;
  return {
    name: "city-staffing-relayed",
    check: async () => {
      if (relayedOnce) return;
      if (await unsentOnTopic(db, CITY_STAFFING_TOPIC)) throw new Error("the city staffing is not on the broker yet");
      relayedOnce = true;
    },
  };
}

