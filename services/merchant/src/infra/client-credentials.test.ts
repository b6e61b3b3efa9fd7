import { isWellFormedClientId } from "@tawsil/domain";
import { describe, expect, it } from "vitest";
import { generateClientId } from "./client-credentials";

describe("generateClientId", () => {
  it("issues only ids of the shape the gateway lets through to the token endpoint", () => {
    const ids = Array.from({ length: 200 }, generateClientId);
    expect(ids.filter((id) => !isWellFormedClientId(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("isWellFormedClientId", () => {
  it.each(["tws_ci_unknown", "tws_ci_AAAAAAAAAAAAAAAAAAAAA", "tws_ci_AAAAAAAAAAAAAAAAAAAAAAA", "tws_sk_AAAAAAAAAAAAAAAAAAAAAA", "tws_ci_AAAAAAAAAAAAAAAAAAAA+=", " tws_ci_AAAAAAAAAAAAAAAAAAAAAA", "x".repeat(256), ""])(
    "refuses %j",
    (id) => expect(isWellFormedClientId(id)).toBe(false),
  );
});
