/**
 * Rotating one process's service-identity key without a refused call, in three phases, each a
 * rewrite of the two objects that hold the keys (the process's Secret `<name>-identity` and the
 * ConfigMap `service-identity`), read from `kubectl get -o json` and written back with
 * `kubectl replace`:
 *
 *   publish  a new key pair: its private key waits in the Secret as SERVICE_IDENTITY_NEXT_PRIVATE_KEY
 *            (no pod reads it), its public key joins the ConfigMap beside the old one. Restart
 *            every Deployment: each callee then trusts both keys.
 *   switch   the Secret's SERVICE_IDENTITY_PRIVATE_KEY becomes the new key. Restart the process's
 *            Deployment: old pods sign with the old key, new ones with the new, both trusted.
 *   retire   the old public key leaves the ConfigMap. Restart every Deployment.
 *
 * Each phase refuses to run out of order (switch before publish has reached the ConfigMap, retire
 * while a new key still waits), and publish run twice keeps the key it made the first time.
 */
import { generateIdentityKeys, identityKeysOf } from "./identity-keys";

export const PRIVATE_KEY = "SERVICE_IDENTITY_PRIVATE_KEY";
/** Where publish leaves the new private key until switch: in the process's Secret, read by no pod. */
export const NEXT_PRIVATE_KEY = "SERVICE_IDENTITY_NEXT_PRIVATE_KEY";
export const PUBLIC_KEYS = "SERVICE_IDENTITY_PUBLIC_KEYS";
export const PUBLIC_KEYS_CONFIG_MAP = "service-identity";

export type Phase = "publish" | "switch" | "retire";
export const PHASES: readonly Phase[] = ["publish", "switch", "retire"];

/** A Secret or ConfigMap as `kubectl get -o json` prints it (what a rotation reads and rewrites). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion?: string; readonly labels?: Record<string, string> };
  readonly type?: string;
  readonly data?: Record<string, string>;
}

/** The objects a rotation of `name` works on. */
export interface IdentityObjects {
  readonly secret: KubeObject;
  readonly configMap: KubeObject;
}

/** The Secret and the ConfigMap out of a `kubectl get secret/<name>-identity configmap/service-identity -o json` List. */
export function identityObjectsOf(name: string, listed: { readonly items?: readonly KubeObject[] }): IdentityObjects {
  const find = (kind: string, objectName: string) => {
    const found = (listed.items ?? []).find((item) => item.kind === kind && item.metadata.name === objectName);
    if (!found) throw new Error(`${kind} ${objectName} is not in the input: pipe in kubectl get secret/${name}-identity configmap/${PUBLIC_KEYS_CONFIG_MAP} -o json`);
    return found;
  };
  return { secret: find("Secret", `${name}-identity`), configMap: find("ConfigMap", PUBLIC_KEYS_CONFIG_MAP) };
}

/** The objects a phase changes, ready for `kubectl replace` (resourceVersion kept: a concurrent change makes replace fail, not vanish). */
export function rotate(phase: Phase, name: string, objects: IdentityObjects, fresh = () => generateIdentityKeys([name])[name]!.privateKey): KubeObject[] {
  const secret = secretKeys(objects.secret);
  const entries = publicKeyEntries(objects.configMap);
  const current = secret[PRIVATE_KEY];
  if (!current) throw new Error(`Secret ${name}-identity has no ${PRIVATE_KEY}: make the first keys with scripts/identity-keys.ts`);
  const publicOf = (privateKey: string) => identityKeysOf({ [name]: privateKey })[name]!.publicKey;
  const trusted = (publicKey: string) => entries.some(([caller, key]) => caller === name && key === publicKey);
  switch (phase) {
    case "publish": {
      const next = secret[NEXT_PRIVATE_KEY] ?? fresh();
      const published = trusted(publicOf(next)) ? entries : [...entries, [name, publicOf(next)] as const];
      return [withSecretKeys(objects.secret, { ...secret, [NEXT_PRIVATE_KEY]: next }), withPublicKeys(objects.configMap, published)];
    }
    case "switch": {
      const next = secret[NEXT_PRIVATE_KEY];
      if (!next) throw new Error(`no ${NEXT_PRIVATE_KEY} in Secret ${name}-identity: run publish first`);
      if (!trusted(publicOf(next))) throw new Error(`the new key of ${name} is not in ConfigMap ${PUBLIC_KEYS_CONFIG_MAP}: run publish again`);
      const { [NEXT_PRIVATE_KEY]: _moved, ...rest } = secret;
      return [withSecretKeys(objects.secret, { ...rest, [PRIVATE_KEY]: next })];
    }
    case "retire": {
      if (secret[NEXT_PRIVATE_KEY]) throw new Error(`Secret ${name}-identity still holds a ${NEXT_PRIVATE_KEY}: run switch (and its rollout) first`);
      const signing = publicOf(current);
      if (!trusted(signing)) throw new Error(`the key ${name} signs with is not in ConfigMap ${PUBLIC_KEYS_CONFIG_MAP}: retiring would refuse every call of ${name}`);
      return [withPublicKeys(objects.configMap, entries.filter(([caller, key]) => caller !== name || key === signing))];
    }
  }
}

/** How many keys each caller is trusted with, for the operator to see where a rotation stands. */
export function keysPerCaller(configMap: KubeObject): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [caller] of publicKeyEntries(configMap)) counts[caller] = (counts[caller] ?? 0) + 1;
  return counts;
}

function secretKeys(secret: KubeObject): Record<string, string> {
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]));
}

function withSecretKeys(secret: KubeObject, keys: Record<string, string>): KubeObject {
  return { ...pristine(secret), type: secret.type ?? "Opaque", data: Object.fromEntries(Object.entries(keys).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")])) };
}

function publicKeyEntries(configMap: KubeObject): (readonly [string, string])[] {
  return (configMap.data?.[PUBLIC_KEYS] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)] as const);
}

function withPublicKeys(configMap: KubeObject, entries: readonly (readonly [string, string])[]): KubeObject {
  return { ...pristine(configMap), data: { ...configMap.data, [PUBLIC_KEYS]: entries.map(([caller, key]) => `${caller}:${key}`).join(",") } };
}

/**
 * An object as replace should write it: name, namespace, labels and resourceVersion; no managed
 * fields, and no last-applied annotation (which, for the Secrets scripts/identity-keys.ts applied,
 * holds the old private key in clear).
 */
function pristine(object: KubeObject): KubeObject {
  const { name, namespace, resourceVersion, labels } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}), ...(labels ? { labels } : {}) },
  };
}
