// The shipment service's process: runMain parses the configuration once and serves what the
// composition root (server.ts) assembles, until SIGTERM drains it.
import { runMain } from "@tawsil/rpc";
import { readConfig } from "./config";
import { shipmentProcess } from "./server";

await runMain("shipment", readConfig, shipmentProcess);
