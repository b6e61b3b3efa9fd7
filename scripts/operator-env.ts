import path from "node:path";
import { fileURLToPath } from "node:url";
import { readDotenv } from "../packages/testing/src/seed-dev";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where `make dev` in this checkout records its mesh, admin listeners included. */
export const CHECKOUT_CREDENTIALS = path.join(ROOT, ".dev", "credentials.env");

/** The admin listener variables the CLI reads, and what `make dev` records for each. */
const RECORDED: Readonly<Record<string, string>> = {
  MERCHANT_ADMIN_URL: "TAWSIL_MERCHANT_ADMIN_URL",
  SHIPMENT_ADMIN_URL: "TAWSIL_SHIPMENT_ADMIN_URL",
  DISPATCH_ADMIN_URL: "TAWSIL_DISPATCH_ADMIN_URL",
  TRACKING_ADMIN_URL: "TAWSIL_TRACKING_ADMIN_URL",
  WEBHOOK_ADMIN_URL: "TAWSIL_WEBHOOK_ADMIN_URL",
};

const PORT_FORWARD: Readonly<Record<string, string>> = {
  MERCHANT_ADMIN_URL: "kubectl port-forward deploy/merchant 7011, then MERCHANT_ADMIN_URL=http://127.0.0.1:7011",
  SHIPMENT_ADMIN_URL: "kubectl port-forward deploy/shipment 7012, then SHIPMENT_ADMIN_URL=http://127.0.0.1:7012",
  DISPATCH_ADMIN_URL: "kubectl port-forward deploy/dispatch 7014, then DISPATCH_ADMIN_URL=http://127.0.0.1:7014",
  TRACKING_ADMIN_URL: "kubectl port-forward deploy/tracking 7015, then TRACKING_ADMIN_URL=http://127.0.0.1:7015",
  WEBHOOK_ADMIN_URL: "kubectl port-forward deploy/webhook 7016, then WEBHOOK_ADMIN_URL=http://127.0.0.1:7016",
};

/**
 * Which mesh the operators' CLI operates: an admin URL set in the environment (a cluster reached by
 * `kubectl port-forward`, say), else the one this checkout's `make dev` recorded in its own
 * .dev/credentials.env (TAWSIL_CREDENTIALS_FILE names another file: a test's mesh). Never a fixed
 * default port: that would be whichever checkout's `make dev` holds it, so a second checkout
 * would operate the first's mesh. Without either, the CLI refuses and says how to get one.
 */
export function operatorEnv(env: Readonly<Record<string, string | undefined>>): {
  env: Record<string, string | undefined>;
  missing(name: string): string;
} {
  const file = env.TAWSIL_CREDENTIALS_FILE || CHECKOUT_CREDENTIALS;
  const recorded = readDotenv(file);
  const resolved: Record<string, string | undefined> = { ...env };
  for (const [name, key] of Object.entries(RECORDED)) resolved[name] = env[name] || recorded[key] || undefined;
  const shown = path.relative(process.cwd(), file) || file;
  return {
    env: resolved,
    missing: (name) =>
      `tawsil: no ${name}: ${shown} names no ${RECORDED[name]} (start \`make dev\` in this checkout), and ${name} is not set (a cluster: ${PORT_FORWARD[name]} ./tawsil ...)`,
  };
}
