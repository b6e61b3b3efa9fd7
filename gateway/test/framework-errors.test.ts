import { connect } from "node:net";
import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBareGateway, type BareGateway } from "./support/bare-gateway";

/**
 * What fastify and Node refuse before a route runs still leaves as a problem of the catalogue
 * (decisions.md section 12), with Content-Language, in the caller's language.
 */
let gateway: BareGateway;
let small: BareGateway;

beforeAll(async () => {
  [gateway, small] = await Promise.all([startBareGateway(), startBareGateway({ BODY_LIMIT_BYTES: "2048" })]);
});
afterAll(async () => {
  await gateway?.close();
  await small?.close();
});

async function problemOf(res: Response, status: number, code: string, language = "en"): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("content-language")).toBe(language);
  const body = (await res.json()) as Record<string, unknown>;
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe(code);
  expect(res.headers.get("x-request-id")).toBe(body.requestId);
  return body;
}

/** Raw bytes to the gateway, for requests no HTTP client would send; resolves with the whole answer. */
function raw(port: number, request: string): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      try {
        resolve({ status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(body) as Record<string, unknown> });
      } catch (error) {
        reject(new Error(`not a JSON answer: ${text.slice(0, 300)}`, { cause: error }));
      }
    });
    socket.end(request);
  });
}

describe("router refusals", () => {
  it("answers a path parameter over the router's limit with 400 INVALID_PARAMETER, not fastify's 414", async () => {
    const res = await fetch(`${gateway.base}/v2/external/shipments/${"a".repeat(500)}`);
    const body = await problemOf(res, 400, "INVALID_PARAMETER");
    expect(JSON.stringify(body)).not.toMatch(/FST_|fastify/i);
    const tracking = await fetch(`${gateway.base}/v2/public/tracking/${"b".repeat(500)}`, { headers: { "accept-language": "ar" } });
    expect((await problemOf(tracking, 400, "INVALID_PARAMETER", "ar")).title).toBe("معامل غير صالح");
  });

  it("answers a path parameter that does not percent-decode with 400 INVALID_PARAMETER", async () => {
    const body = await problemOf(await fetch(`${gateway.base}/v2/external/shipments/%E0%A4%A`), 400, "INVALID_PARAMETER");
    expect(JSON.stringify(body)).not.toMatch(/FST_|valid url component/);
  });

  it("answers a path that does not percent-decode but has no parameter with 404 RESOURCE_NOT_FOUND, as any path the API lacks", async () => {
    await problemOf(await fetch(`${gateway.base}/v2/external/%ff`), 404, "RESOURCE_NOT_FOUND");
    await problemOf(await fetch(`${gateway.base}/v2/%E0%A4%A/me`, { method: "POST" }), 404, "RESOURCE_NOT_FOUND");
    // A parameter in a deeper route is still a malformed parameter.
    await problemOf(await fetch(`${gateway.base}/v2/external/shipments/%ff/cancel`, { method: "POST" }), 400, "INVALID_PARAMETER");
  });

  it("answers an empty path parameter with 404 RESOURCE_NOT_FOUND, whatever the method: the path names nothing", async () => {
    for (const [method, path] of [["GET", "/v2/public/tracking/"], ["POST", "/v2/public/tracking/"], ["GET", "/t/"], ["GET", "/v2/external/shipments//tracking"]]) {
      const res = await fetch(`${gateway.base}${path}`, { method });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      await problemOf(res, 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("answers another method on the customer page and its stylesheet with 405 and Allow, as on every path", async () => {
    for (const path of [`/t/${"c".repeat(43)}`, "/t/assets/page.css"]) {
      const res = await fetch(`${gateway.base}${path}`, { method: "POST" });
      await problemOf(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBe("GET, HEAD");
    }
  });

  it("answers a customer link the router refuses (a code far too long, bad percent-encoding) with the not-found page, in the reader's language", async () => {
    for (const [code, language] of [["x".repeat(500), "en"], ["%ff", "ar"]] as const) {
      const res = await fetch(`${gateway.base}/t/${code}`, { headers: { "accept-language": language } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-language")).toBe(language);
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      const html = await res.text();
      expect(html).toContain(`<html lang="${language}"`);
      expect(html).toContain('data-status="notFound"');
    }
    // The same refusal on the API is still a problem document.
    await problemOf(await fetch(`${gateway.base}/v2/public/tracking/${"x".repeat(500)}`), 400, "INVALID_PARAMETER");
  });

  it("answers a method Node parses but the resource lacks with 405 and Allow", async () => {
    for (const method of ["PROPFIND", "PURGE"]) {
      const res = await fetch(`${gateway.base}/v2/external/shipments`, { method });
      await problemOf(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBe("GET, POST, HEAD");
    }
  });
});

describe("body refusals", () => {
  const post = (base: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/test/echo`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it("takes the body limit from BODY_LIMIT_BYTES and names it in the 413", async () => {
    const body = JSON.stringify({ pad: "x".repeat(4096) });
    const refused = await problemOf(await post(small.base, body, { "accept-language": "ar" }), 413, "PAYLOAD_TOO_LARGE", "ar");
    expect(refused.detail).toContain("2 KiB");
    expect((await post(gateway.base, body)).status).toBe(200);
  });

  it("answers an empty JSON body with 400 MALFORMED_REQUEST", async () => {
    await problemOf(await post(gateway.base, ""), 400, "MALFORMED_REQUEST");
  });
});

describe("requests Node cannot parse", () => {
  const expectProblem = (answer: Awaited<ReturnType<typeof raw>>, language = "en") => {
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(answer.headers["content-language"]).toBe(language);
    expect(problemSchemaErrors(answer.body)).toEqual([]);
    expect(answer.body.code).toBe("MALFORMED_REQUEST");
    expect(answer.headers["x-request-id"]).toBe(answer.body.requestId);
  };

  it("answers headers over Node's size limit with a 400 problem, in Arabic when asked first", async () => {
    const big = `GET /v2/external/me HTTP/1.1\r\nHost: x\r\nAccept-Language: ar\r\nX-Pad: ${"p".repeat(20_000)}\r\n\r\n`;
    expectProblem(await raw(gateway.port, big), "ar");
    const longPath = `GET /v2/external/shipments/${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    expectProblem(await raw(gateway.port, longPath));
  });

  it("answers a bad Content-Length and a malformed request line with a 400 problem", async () => {
    expectProblem(await raw(gateway.port, "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}"));
    expectProblem(await raw(gateway.port, "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"));
    expectProblem(await raw(gateway.port, "HELLO THERE\r\n\r\n"));
  });
});
