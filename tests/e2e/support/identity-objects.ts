/**
 * The cluster's identity objects for a test mesh (each process's Secret `<name>-identity`, the
 * ConfigMap `service-identity`), so a test rotates keys with packages/rpc/src/identity-rotation.ts (what scripts/identity-keys.ts runs) as
 * deploy/README.md's procedure does, and starts each process from what the objects hold then.
 */
import type { IdentityKeys } from "@tawsil/rpc";
import { keysPerCaller, PRIVATE_KEY, PUBLIC_KEYS, PUBLIC_KEYS_CONFIG_MAP, rotate, type KubeObject, type Phase } from "../../../packages/rpc/src/identity-rotation";

export class IdentityObjects {
  readonly #secrets = new Map<string, KubeObject>();
  #configMap: KubeObject;

  constructor(keys: IdentityKeys) {
    for (const [name, pair] of Object.entries(keys)) {
      this.#secrets.set(name, { apiVersion: "v1", kind: "Secret", metadata: { name: `${name}-identity` }, data: { [PRIVATE_KEY]: Buffer.from(pair.privateKey).toString("base64") } });
    }
    const publicKeys = Object.entries(keys).map(([name, pair]) => `${name}:${pair.publicKey}`);
    this.#configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: PUBLIC_KEYS_CONFIG_MAP }, data: { [PUBLIC_KEYS]: publicKeys.join(",") } };
  }

  /** Runs `phase` for `name` and writes back what it changed, as `kubectl replace` does. */
  rotate(phase: Phase, name: string): void {
    for (const changed of rotate(phase, name, { secret: this.#secret(name), configMap: this.#configMap })) {
      if (changed.kind === "ConfigMap") this.#configMap = changed;
      else this.#secrets.set(name, changed);
    }
  }

  /** The settings a pod of `name` starts with: its Secret's private key (not the waiting next one) and the ConfigMap's public keys. */
  envOf(name: string): Record<string, string> {
    const privateKey = this.#secret(name).data?.[PRIVATE_KEY];
    if (!privateKey) throw new Error(`no ${PRIVATE_KEY} for ${name}`);
    return { [PRIVATE_KEY]: Buffer.from(privateKey, "base64").toString("utf8"), [PUBLIC_KEYS]: this.#configMap.data?.[PUBLIC_KEYS] ?? "" };
  }

  /** How many keys `name` is trusted with (2 between publish and retire). */
  keysOf(name: string): number {
    return keysPerCaller(this.#configMap)[name] ?? 0;
  }

  #secret(name: string): KubeObject {
    const secret = this.#secrets.get(name);
    if (!secret) throw new Error(`no Secret ${name}-identity`);
    return secret;
  }
}
