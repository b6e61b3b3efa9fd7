import { ValidationError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { InvalidScopeError } from "./errors";
import { narrowScopes, parseClientScopes, SCOPES } from "./scopes";

describe("scope narrowing", () => {
  const granted = ["shipments:write", "shipments:read"];

  it("grants every scope of the client when none is requested, in catalogue order", () => {
    expect(narrowScopes([], granted)).toEqual(["shipments:read", "shipments:write"]);
    expect(narrowScopes([""], granted)).toEqual(["shipments:read", "shipments:write"]);
  });

  it("grants exactly the requested subset, once each", () => {
    expect(narrowScopes(["shipments:read"], granted)).toEqual(["shipments:read"]);
    expect(narrowScopes(["shipments:write", "shipments:read", "shipments:write"], granted)).toEqual(["shipments:read", "shipments:write"]);
  });

  it("refuses a scope the client does not hold, and one that does not exist", () => {
    expect(() => narrowScopes(["shipments:read", "webhooks:manage"], granted)).toThrow(InvalidScopeError);
    expect(() => narrowScopes(["admin"], granted)).toThrow(InvalidScopeError);
    expect(() => narrowScopes(["SHIPMENTS:READ"], granted)).toThrow(InvalidScopeError);
  });

  it("ignores stored scopes that left the catalogue", () => {
    expect(narrowScopes([], ["shipments:read", "legacy:scope"])).toEqual(["shipments:read"]);
  });
});

describe("client scopes", () => {
  it("accepts catalogue scopes, deduplicated and ordered", () => {
    expect(parseClientScopes("scopes", ["webhooks:manage", "shipments:read", "webhooks:manage"])).toEqual(["shipments:read", "webhooks:manage"]);
    expect(SCOPES).toEqual(["shipments:read", "shipments:write", "webhooks:manage"]);
  });

  it("requires at least one known scope", () => {
    expect(() => parseClientScopes("scopes", [])).toThrow(ValidationError);
    expect(() => parseClientScopes("scopes", ["shipments:delete"])).toThrow('scopes: unknown scope "shipments:delete"');
  });
});
