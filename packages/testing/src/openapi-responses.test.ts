import { describe, expect, it } from "vitest";
import { openApiResponseCheck } from "./openapi-responses";

/** A small document in the gateway's style: one operation with a header, a JSON body and a problem. */
const document = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/v2/things/{id}": {
      get: {
        responses: {
          "200": {
            description: "a thing",
            headers: { ETag: { $ref: "#/components/headers/ETag" } },
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
          "304": { description: "not modified" },
        },
      },
    },
  },
  components: {
    headers: { ETag: { required: true, schema: { type: "string", pattern: '^"\\d+"$' } } },
    schemas: {
      Thing: { type: "object", required: ["id", "amount"], properties: { id: { type: "string", format: "uuid" }, amount: { type: ["number", "null"], multipleOf: 0.01 } } },
      Problem: {
        type: "object",
        required: ["status", "code"],
        properties: { status: { type: "integer" }, code: { type: "string" } },
        additionalProperties: true,
      },
    },
  },
};

const check = openApiResponseCheck(document);
const ID = "0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b";
const get = (path: string) => ({ method: "GET", url: `http://gateway${path}` });
const answer = (status: number, headers: Record<string, string>, body: unknown) => ({
  status,
  headers: new Headers(headers),
  body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
});
const json = { "content-type": "application/json; charset=utf-8", etag: '"3"' };

describe("the OpenAPI response check", () => {
  it("accepts a response the document describes (cent amounts despite binary floats)", () => {
    expect(check(get(`/v2/things/${ID}`), answer(200, json, { id: ID, amount: 149.5 }))).toEqual([]);
    expect(check(get(`/v2/things/${ID}`), answer(200, json, { id: ID, amount: 0.07 }))).toEqual([]);
    expect(check(get(`/v2/things/${ID}`), answer(304, {}, undefined))).toEqual([]);
  });

  it("rejects a field the document does not name, a wrong type and a missing required field", () => {
    expect(check(get(`/v2/things/${ID}`), answer(200, json, { id: ID, amount: 1, extra: true })).join()).toMatch(/additional properties/);
    expect(check(get(`/v2/things/${ID}`), answer(200, json, { id: "x", amount: "1" })).join()).toMatch(/uuid[\s\S]*number/);
    expect(check(get(`/v2/things/${ID}`), answer(200, json, { id: ID })).join()).toMatch(/required property 'amount'/);
  });

  it("rejects an undocumented status, a missing or malformed required header and an undocumented media type", () => {
    expect(check(get(`/v2/things/${ID}`), answer(201, json, { id: ID, amount: 1 }))).toEqual(["status 201 is not documented for GET /v2/things/{id}"]);
    expect(check(get(`/v2/things/${ID}`), answer(200, { "content-type": "application/json" }, { id: ID, amount: 1 }))).toEqual(["the required header ETag is missing"]);
    expect(check(get(`/v2/things/${ID}`), answer(200, { ...json, etag: "W/1" }, { id: ID, amount: 1 })).join()).toMatch(/header ETag/);
    expect(check(get(`/v2/things/${ID}`), answer(200, { ...json, "content-type": "text/plain" }, { id: ID, amount: 1 })).join()).toMatch(/text\/plain is not one of application\/json/);
    expect(check(get(`/v2/things/${ID}`), answer(304, {}, { id: ID }))).toEqual(["a body where the document describes none"]);
  });

  it("holds unknown paths to 404 RESOURCE_NOT_FOUND and unknown methods to 405 METHOD_NOT_ALLOWED with Allow", () => {
    const problem = { "content-type": "application/problem+json" };
    expect(check(get("/v2/nothing"), answer(404, problem, { status: 404, code: "RESOURCE_NOT_FOUND" }))).toEqual([]);
    expect(check(get("/v2/nothing"), answer(200, json, {}))).toEqual(["no path of the document matches /v2/nothing"]);
    const del = { method: "DELETE", url: `http://gateway/v2/things/${ID}` };
    expect(check(del, answer(405, { ...problem, allow: "GET, HEAD" }, { status: 405, code: "METHOD_NOT_ALLOWED" }))).toEqual([]);
    expect(check(del, answer(405, problem, { status: 405, code: "METHOD_NOT_ALLOWED" }))).toEqual(["a 405 without an Allow header"]);
    expect(check(del, answer(200, json, {}))).toContain("DELETE is not documented on /v2/things/{id}");
  });

  it("leaves the routes outside the contract (probes, metrics, test routes) alone", () => {
    expect(check(get("/readyz"), answer(503, json, { anything: 1 }))).toEqual([]);
    expect(check(get("/test/needs-write"), answer(200, json, { anything: 1 }))).toEqual([]);
  });
});
