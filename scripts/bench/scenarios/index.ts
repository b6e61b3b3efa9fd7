/** Every scenario, in the order they run (create-paced needs create's rate, list-deep compares with list-first). */
import { create } from "./create";
import { createPaced } from "./create-paced";
import { estimate } from "./estimate";
import { listDeep, listFirst } from "./list";
import { read } from "./read";
import type { Scenario } from "./scenario";
import { tracking } from "./tracking";
import { trackingFreshness } from "./tracking-freshness";
import { webhookBurst } from "./webhook-burst";
import { webhookFanout } from "./webhook-fanout";

export const SCENARIOS: readonly Scenario[] = [create, createPaced, estimate, read, listFirst, listDeep, tracking, trackingFreshness, webhookFanout, webhookBurst];
