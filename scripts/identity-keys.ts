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
 *
 * Rotating one process's key later, without a refused call (packages/rpc/src/identity-rotation.ts), is
 * three runs, each reading the two objects from kubectl and writing back what changes, each
 * followed by the rollout it prints on stderr (deploy/README.md has the whole procedure):
 *
 *   kubectl -n $NS get secret/<name>-identity configmap/service-identity -o json \
 *     | pnpm exec tsx scripts/identity-keys.ts publish|switch|retire <name> | kubectl -n $NS replace -f -
 */
import { pathToFileURL } from "node:url";
import { generateIdentityKeys, publicKeysSetting } from "../packages/rpc/src/identity-keys";
import { identityObjectsOf, PHASES, rotate, type Phase } from "../packages/rpc/src/identity-rotation";
import { IDENTITIES } from "../packages/topology/src";

/** The manifests, as one YAML stream (JSON documents are YAML). */
export function identityManifests(extraPublicKeys: Readonly<Record<string, string>> = {}): string {
  const keys = generateIdentityKeys(IDENTITIES);
  const secrets = IDENTITIES.map((name) => ({
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

/** The Deployments that read the public keys (every process of the mesh), in the deploy's order. */
const DEPLOYMENTS = ["merchant", "pricing", "dispatch", "shipment", "tracking", "webhook", "gateway"] as const;

/** What the operator runs after a phase's objects are replaced: the rollout that makes it take effect, awaited. */
export function rolloutAfter(phase: Phase, name: string): string {
  const restarted = phase === "switch" ? [name] : [...DEPLOYMENTS];
  const next = { publish: `switch ${name}`, switch: `retire ${name}`, retire: undefined }[phase];
  return [
    `kubectl -n $NS rollout restart ${restarted.map((d) => `deploy/${d}`).join(" ")}`,
    `for d in ${restarted.join(" ")}; do kubectl -n $NS rollout status deploy/$d --timeout=10m || break; done`,
    next ? `# once every rollout above is complete: the same pipeline with ${next}` : `# done: ${name} signs with its new key, the only one trusted`,
  ].join("\n");
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function usage(): never {
  console.error("usage: tsx scripts/identity-keys.ts [--public-key <name>=<base64 SPKI>]...");
  console.error(`       kubectl get secret/<name>-identity configmap/service-identity -o json | tsx scripts/identity-keys.ts ${PHASES.join("|")} <name>`);
  process.exit(2);
}

async function main(args: readonly string[]): Promise<void> {
  const phase = PHASES.find((p) => p === args[0]);
  if (phase) {
    const name = args[1];
    if (!name || !(IDENTITIES as readonly string[]).includes(name)) usage();
    const changed = rotate(phase, name, identityObjectsOf(name, JSON.parse(await readStdin()) as Parameters<typeof identityObjectsOf>[1]));
    process.stdout.write(changed.map((doc) => JSON.stringify(doc)).join("\n---\n") + "\n");
    console.error(`${phase} ${name}: pipe this into kubectl -n $NS replace -f -, then:\n${rolloutAfter(phase, name)}`);
    return;
  }
  const extra: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const [name, key] = (args[i] === "--public-key" ? (args[++i] ?? "") : "").split("=");
    if (!name || !key) usage();
    extra[name] = key;
  }
  process.stdout.write(identityManifests(extra));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    // A phase out of order says what to run first; nothing was printed for kubectl to replace.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
