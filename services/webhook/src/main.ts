// The webhook service's process: runMain parses the configuration once and serves what the
// composition root (server.ts) assembles, until SIGTERM drains it.
import { runMain } from "@tawsil/rpc";
import { readConfig } from "./config";
import { webhookProcess } from "./server";

await runMain("webhook", readConfig, webhookProcess);
