import { describe, expect, it } from "vitest";
import { newClusterId } from "./cluster-id";

describe("newClusterId", () => {
  it("is 16 random bytes in URL-safe base64 without padding, never starting with '-'", () => {
    const ids = Array.from({ length: 2_000 }, newClusterId);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Buffer.from(id, "base64url")).toHaveLength(16);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // '-' and '_' each start about 1 in 64 random ids: 2,000 draws hold some '_' and, but for the redraw, some '-'.
    expect(ids.some((id) => id.startsWith("_"))).toBe(true);
  });
});
