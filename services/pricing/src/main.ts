// The pricing service's process: runMain parses the configuration once and serves what the
// composition root (server.ts) assembles, until SIGTERM drains it.
import { runMain } from "@tawsil/rpc";
import { readConfig } from "./config";
import { pricingProcess } from "./server";

await runMain("pricing", readConfig, pricingProcess);
