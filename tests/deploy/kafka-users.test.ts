/**
 * Kafka access, rendered: each process that uses Kafka has a KafkaUser whose ACLs grant exactly
 * what its README's Events table says it produces and consumes (and its consumer groups), the
 * README agrees with the code, and every environment's pods reach the brokers over TLS (the cluster
 * CA mounted) with SCRAM-SHA-512 as their own user.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kafkaConnection } from "../../packages/events/src/kafka-connection";
import { accessOf, type KafkaAccess } from "../../packages/testing/src/kafka-access";
import * as topology from "../../packages/topology/src";
import { find, ofKind, podSpec, processesIn, sourceDir, usesKafka, type Overlay, type ProcessName } from "./facts";
import { DEPLOY, ROOT, render } from "./kustomize";
import type { Manifest } from "./manifest-types";

interface Acl { resource: { type: string; name: string; patternType?: string }; operations: string[]; type?: string; host?: string }
interface UserSpec { authentication: { type: string }; authorization: { type: string; acls: Acl[] } }

/** One line per granted operation, e.g. `Write topic shipment.shipment.events.v1 literal`. */
const grantsOf = (acls: readonly Acl[]): string[] =>
  acls.flatMap((acl) => acl.operations.map((op) => `${acl.type ?? "allow"} ${op} ${acl.resource.type} ${acl.resource.name} ${acl.resource.patternType ?? "literal"}`)).sort();

/** What the Events table says, as the grants it needs: written here from the access, not from the generator. */
function grantsNeeded(access: KafkaAccess): string[] {
  const grant = (ops: string[], type: string, names: readonly string[], pattern: string) => names.flatMap((name) => ops.map((op) => `allow ${op} ${type} ${name} ${pattern}`));
  return [
    ...grant(["Write", "Describe"], "topic", access.produces, "literal"),
    ...grant(["Read", "Describe"], "topic", access.consumes, "literal"),
    ...grant(["Read", "Describe"], "group", access.groups, "literal"),
    ...grant(["Read", "Describe"], "group", access.groupPrefixes, "prefix"),
  ].sort();
}

/** A process's src/ (not its tests), file by file. */
function sources(name: ProcessName): string[] {
  const dir = path.join(ROOT, sourceDir(name), "src");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  return files.map((f) => readFileSync(path.join(dir, f), "utf8"));
}

/** Every string literal in a process's src/: where its consumer groups' names must come from. */
const sourceLiterals = (name: ProcessName): Set<string> => new Set(sources(name).flatMap((code) => [...code.matchAll(/["'`]([a-z][a-z0-9.-]+)["'`]/g)].map((m) => m[1] as string)));

/** Each topic's constant in packages/topology, the one way code names a topic (tests/ownership/topic-names.test.ts). */
const TOPIC_CONSTANTS = Object.entries(topology).flatMap(([constant, value]) => (constant.endsWith("_TOPIC") && typeof value === "string" ? [[constant, value] as const] : []));

/** The topics a process's src/ names, by their constants. */
const topicsNamedIn = (name: ProcessName): Set<string> => {
  const code = sources(name).join("\n");
  return new Set(TOPIC_CONSTANTS.filter(([constant]) => new RegExp(`\\b${constant}\\b`).test(code)).map(([, topic]) => topic));
};

const TOPIC_NAMES = topology.TOPICS.map((t) => t.topic);

describe.each(["sandbox", "production"] as const)("the %s overlay's Kafka access", (overlay: Overlay) => {
  const manifests = render(path.join(DEPLOY, "overlays", overlay));
  const kafkaProcesses = processesIn(overlay).filter(usesKafka);
  const users = ofKind(manifests, "KafkaUser");
  const configOf = (name: string): Record<string, string> => find(manifests, "ConfigMap", `${name}-config`).data ?? {};

  it("has one KafkaUser per process that uses Kafka, and no other", () => {
    expect(users.map((u) => u.metadata.name).sort()).toEqual(kafkaProcesses.map((p) => `${p}-kafka`).sort());
  });

  describe.each(kafkaProcesses)("%s", (name) => {
    const user = (): Manifest => find(manifests, "KafkaUser", `${name}-kafka`);
    const spec = () => user().spec as UserSpec;
    const access = accessOf(ROOT, sourceDir(name));

    it("authenticates with SCRAM-SHA-512 on the cluster the topics live on", () => {
      expect(spec().authentication).toEqual({ type: "scram-sha-512" });
      expect(user().metadata.labels?.["strimzi.io/cluster"]).toBe(find(manifests, "KafkaTopic", TOPIC_NAMES[0] as string).metadata.labels?.["strimzi.io/cluster"]);
    });

    it("may do exactly what its README's Events table says: write its topics, read those it consumes, join its groups", () => {
      expect(spec().authorization.type).toBe("simple");
      expect(grantsOf(spec().authorization.acls)).toEqual(grantsNeeded(access));
      expect(access.produces.length + access.consumes.length).toBeGreaterThan(0);
    });

    it("names in its README only the architecture's topics, and topics and groups its code uses", () => {
      const literals = sourceLiterals(name);
      const named = topicsNamedIn(name);
      for (const topic of [...access.produces, ...access.consumes]) {
        expect(TOPIC_NAMES, topic).toContain(topic);
        expect(named.has(topic), `${topic}'s constant in ${sourceDir(name)}/src`).toBe(true);
      }
      for (const group of access.groups) expect(literals.has(group), `group ${group} in ${sourceDir(name)}/src`).toBe(true);
      for (const prefix of access.groupPrefixes) expect(literals.has(prefix.replace(/\.$/, "")), `group prefix ${prefix} in ${sourceDir(name)}/src`).toBe(true);
    });

    it("connects over TLS trusting the mounted cluster CA, as its own user with the password from its KafkaUser's Secret", () => {
      const data = configOf(name);
      const container = podSpec(find(manifests, "Deployment", name)).containers[0];
      expect(data).toMatchObject({ KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_USERNAME: user().metadata.name, KAFKA_TLS_CA_FILE: "/etc/tawsil/kafka-ca/ca.crt" });
      expect(container?.env).toContainEqual({ name: "KAFKA_SASL_PASSWORD", valueFrom: { secretKeyRef: { name: user().metadata.name, key: "password" } } });
      const mount = container?.volumeMounts?.find((m) => data.KAFKA_TLS_CA_FILE?.startsWith(`${m.mountPath}/`));
      expect(mount?.readOnly).toBe(true);
      const volume = podSpec(find(manifests, "Deployment", name)).volumes?.find((v) => v.name === mount?.name);
      expect(volume?.secret).toEqual({ secretName: "kafka-cluster-ca", items: [{ key: "ca.crt", path: path.basename(data.KAFKA_TLS_CA_FILE ?? "") }] });
      // The connection the process builds from those settings: TLS and SASL, both complete.
      const connection = kafkaConnection({ ...data, KAFKA_BROKERS: [data.KAFKA_BROKERS ?? ""], KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_PASSWORD: "from-the-secret" }, () => "CA PEM");
      expect(connection).toMatchObject({ tls: { ca: "CA PEM" }, sasl: { mechanism: "scram-sha-512", username: user().metadata.name } });
    });
  });

  it("grants no ACL that creates, deletes or reconfigures anything, nor any cluster-wide or wildcard one", () => {
    const acls = users.flatMap((u) => (u.spec as UserSpec).authorization.acls);
    expect(acls.length).toBeGreaterThan(0);
    for (const acl of acls) {
      expect(acl.operations.every((op) => ["Read", "Write", "Describe"].includes(op)), JSON.stringify(acl)).toBe(true);
      expect(["topic", "group"], JSON.stringify(acl)).toContain(acl.resource.type);
      expect(acl.resource.name, JSON.stringify(acl)).not.toMatch(/^\*$|^$/);
      expect(acl.type ?? "allow").toBe("allow");
    }
  });

  it("lets each topic be written by one process alone, and read only where something writes it", () => {
    const grants = users.flatMap((u) => grantsOf((u.spec as UserSpec).authorization.acls).map((g) => `${u.metadata.name} ${g}`));
    for (const topic of TOPIC_NAMES) {
      expect(grants.filter((g) => g.endsWith(` Write topic ${topic} literal`)), topic).toHaveLength(1);
    }
  });
});
