/**
 * Service identity for a cluster: a fresh Ed25519 key pair per process, printed as Kubernetes
 * objects on stdout (nothing on a command line, nothing written to disk): one Secret
 * `<process>-identity` per process holding its private key, and the ConfigMap `service-identity`
 * holding every public key. Apply it straight into the namespace:
 *
 *   pnpm exec tsx scripts/identity-keys.ts | kubectl apply -n tawsil-sandbox -f -
 *
 * then restart the Deployments. `--public-key <name>=<base64 SPKI>` adds a caller that is not
 * one of ours to the ConfigMap (none today: drivers reach dispatch through the gateway).
 */
import { pathToFileURL } from "node:url";
import { generateIdentityKeys, publicKeysSetting } from "../packages/rpc/src/identity-keys";
import { SERVICES } from "./mesh";

export const PROCESS_NAMES = ["gateway", ...SERVICES] as const;

/** The manifests, as one YAML stream (JSON documents are YAML). */
export function identityManifests(extraPublicKeys: Readonly<Record<string, string>> = {}): string {
  const keys = generateIdentityKeys(PROCESS_NAMES);
  const secrets = PROCESS_NAMES.map((name) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `${name}-identity`, labels: { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "tawsil" } },
    type: "Opaque",
    stringData: { SERVICE_IDENTITY_PRIVATE_KEY: keys[name]!.privateKey },
  }));
  const extra = Object.entries(extraPublicKeys).map(([name, publicKey]) => `${name}:${publicKey}`);
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "service-identity", labels: { "app.kubernetes.io/part-of": "tawsil" } },
    data: { SERVICE_IDENTITY_PUBLIC_KEYS: [publicKeysSetting(keys), ...extra].join(",") },
  };
  return [...secrets, configMap].map((doc) => JSON.stringify(doc)).join("\n---\n") + "\n";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const extra: Record<string, string> = {};
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const [name, key] = (args[i] === "--public-key" ? (args[++i] ?? "") : "").split("=");
    if (!name || !key) {
      console.error("usage: tsx scripts/identity-keys.ts [--public-key <name>=<base64 SPKI>]...");
      process.exit(2);
    }
    extra[name] = key;
  }
  process.stdout.write(identityManifests(extra));
}
