/**
 * What each process may do on Kafka, read from the one place the project states it: the Events
 * table of the process's README (`| produces | \`topic\` |` and `| consumes | \`topic\` |` rows, the
 * consumer groups named in them as group `name`, or group `prefix.<uuid>` for a broadcast consumer,
 * whose every replica joins a group of its own). scripts/kafka-users.ts turns it into the
 * processes' KafkaUser ACLs; tests/deploy checks the rendered ACLs against it, and it against the code.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export interface KafkaAccess {
  /** Topics the process writes (Write, Describe). */
  readonly produces: readonly string[];
  /** Topics the process reads (Read, Describe). */
  readonly consumes: readonly string[];
  /** Consumer groups it joins by their exact name (Read, Describe). */
  readonly groups: readonly string[];
  /** Prefixes of the groups its broadcast consumers make up, one per replica and start (Read, Describe). */
  readonly groupPrefixes: readonly string[];
}

const ROW = /^\|\s*(produces|consumes)\s*\|\s*`([^`]+)`[^|]*\|(.*)$/;
const GROUP = /group `([^`]+)`/g;
const BROADCAST = ".<uuid>";

const sortedUnique = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** The access a README's Events table grants. */
export function accessFromReadme(readme: string): KafkaAccess {
  const produces: string[] = [];
  const consumes: string[] = [];
  const named: string[] = [];
  for (const line of readme.split("\n")) {
    const row = ROW.exec(line);
    if (!row) continue;
    const [, direction, topic, rest] = row as unknown as [string, "produces" | "consumes", string, string];
    (direction === "produces" ? produces : consumes).push(topic);
    for (const [, group] of rest.matchAll(GROUP)) named.push(group as string);
  }
  return {
    produces: sortedUnique(produces),
    consumes: sortedUnique(consumes),
    groups: sortedUnique(named.filter((g) => !g.endsWith(BROADCAST))),
    // The trailing dot keeps `pricing.city-staffing.` from also matching a `pricing.city-staffing-x` group.
    groupPrefixes: sortedUnique(named.filter((g) => g.endsWith(BROADCAST)).map((g) => g.slice(0, -BROADCAST.length + 1))),
  };
}

/** The access of the process whose sources are in `dir` (gateway, services/<name>), from its README. */
export const accessOf = (root: string, dir: string): KafkaAccess => accessFromReadme(readFileSync(path.join(root, dir, "README.md"), "utf8"));
