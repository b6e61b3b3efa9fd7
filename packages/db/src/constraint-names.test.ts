import { describe, expect, it } from "vitest";
import { foreignKeyName, indexName, primaryKeyName, uniqueIndexName } from "./constraint-names";

describe("Prisma's default constraint names", () => {
  it("joins the table and column names with the kind's suffix", () => {
    expect(primaryKeyName("outbox_event")).toBe("outbox_event_pkey");
    expect(uniqueIndexName("outbox_event", ["event_id"])).toBe("outbox_event_event_id_key");
    expect(indexName("outbox_event", ["sent_at", "seq"])).toBe("outbox_event_sent_at_seq_idx");
    expect(foreignKeyName("book", ["author_id"])).toBe("book_author_id_fkey");
  });

  it("cuts the name before the suffix so the whole stays within 63 bytes", () => {
    const table = "t".repeat(70);
    expect(primaryKeyName(table)).toBe(`${"t".repeat(58)}_pkey`);
    expect(indexName(table, ["c"])).toBe(`${"t".repeat(59)}_idx`);
    expect(indexName("t".repeat(57), ["c"])).toBe(`${"t".repeat(57)}_c_idx`);
  });

  it("never splits a multi-byte character", () => {
    // 59 bytes are left before "_key": "é" (2 bytes) fits after 57 "t", not after 58.
    expect(uniqueIndexName(`${"t".repeat(57)}é`, ["c"])).toBe(`${"t".repeat(57)}é_key`);
    expect(uniqueIndexName(`${"t".repeat(58)}é`, ["c"])).toBe(`${"t".repeat(58)}_key`);
  });
});
