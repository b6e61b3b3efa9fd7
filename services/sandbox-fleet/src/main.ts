// The sandbox fleet's process: runMain parses the configuration once and runs what the
// composition root (server.ts) assembles, until SIGTERM drains it.
import { runMain } from "@tawsil/rpc";
import { readConfig } from "./config";
import { fleetProcess } from "./server";

await runMain("sandbox-fleet", readConfig, fleetProcess);
