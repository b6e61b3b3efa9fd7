/**
 * The names a mesh with replicas calls its services by, each resolving to the addresses of its
 * ready replicas, as a headless Service's DNS name lists its ready pods' addresses: a replica is
 * listed once it answers /readyz and unlisted before it is stopped, as the endpoints controller
 * does with a terminating pod. Kept in a file every process reads when it resolves a name
 * (./mesh-hosts.mjs, MESH_HOSTS_FILE).
 */
import { renameSync, writeFileSync } from "node:fs";

/** The name a process of a mesh with replicas calls `service` by. */
export const peerName = (service: string): string => `${service}.mesh.test`;

export class MeshNames {
  readonly #addresses = new Map<string, string[]>();

  constructor(readonly file: string) {
    this.#write();
  }

  /** `address` serves `service` from now on. */
  list(service: string, address: string): void {
    const addresses = this.#addresses.get(peerName(service)) ?? [];
    this.#addresses.set(peerName(service), [...addresses.filter((a) => a !== address), address]);
    this.#write();
  }

  /** `address` no longer serves `service`. */
  unlist(service: string, address: string): void {
    this.#addresses.set(peerName(service), (this.#addresses.get(peerName(service)) ?? []).filter((a) => a !== address));
    this.#write();
  }

  /** Whole or not at all: a process reading it meanwhile sees the previous version, never half of one. */
  #write(): void {
    writeFileSync(`${this.file}.next`, JSON.stringify(Object.fromEntries(this.#addresses)));
    renameSync(`${this.file}.next`, this.file);
  }
}
