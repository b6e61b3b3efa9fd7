import { randomUUID } from "node:crypto";

/**
 * A new KRaft cluster id, as `kafka-storage random-uuid` prints one (Kafka's Uuid.randomUuid): a
 * random UUID's 16 bytes in URL-safe base64 without padding, never starting with "-" (the tool
 * would read it as an option). Made here rather than by the tool: that was a JVM started and
 * stopped before every broker, seconds of every `make dev` on these machines. The reserved ids
 * Kafka also skips (all zeros, and 0...01) are not version 4 UUIDs, so randomUUID never gives them.
 */
export function newClusterId(): string {
  for (;;) {
    const id = Buffer.from(randomUUID().replaceAll("-", ""), "hex").toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}
