import http from "node:http";
import type { AddressInfo } from "node:net";
import { DependencyUnavailableError, FailedPreconditionError } from "@tawsil/errors";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Place } from "../domain/route-distance";
import { OsrmRouteDistance } from "./osrm-route-distance";

/** A fake OSRM server: the routing engine is outside our system, so its behaviour is scripted here. */
type Script = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let script: Script = (_req, res) => res.end();
const seen: string[] = [];
const server = http.createServer((req, res) => {
  seen.push(req.url ?? "");
  script(req, res);
});
let baseUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  seen.length = 0;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (status: number, body: unknown): Script => (_req, res) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const from: Place = { coordinate: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 }, cityCode: "RUH" };
const to: Place = { coordinate: { latitudeMicro: 24_666_000, longitudeMicro: -46_730_005 }, cityCode: "RUH" };
const engine = (timeoutMs = 2_000, url = baseUrl) => new OsrmRouteDistance({ baseUrl: url, timeoutMs });
const signal = () => new AbortController().signal;

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("OsrmRouteDistance", () => {
  it("asks the driving route service with exact lng,lat pairs and rounds the distance to whole metres", async () => {
    script = json(200, { code: "Ok", routes: [{ distance: 7931.6, duration: 801.2, legs: [] }], waypoints: [] });
    expect(await engine(2_000, `${baseUrl}/`).metres(from, to, signal())).toBe(7932);
    expect(seen).toEqual(["/route/v1/driving/46.685000,24.690000;-46.730005,24.666000?overview=false"]);
  });

  it("is unavailable when the server answers 5xx", async () => {
    script = json(503, { message: "overloaded" });
    expect(await failureOf(engine().metres(from, to, signal()))).toBeInstanceOf(DependencyUnavailableError);
    script = (_req, res) => res.writeHead(500).end("boom");
    expect(await failureOf(engine().metres(from, to, signal()))).toMatchObject({ reason: "DEPENDENCY_UNAVAILABLE", message: "the routing engine is unavailable" });
  });

  it("is unavailable when the server does not answer within the deadline", async () => {
    script = (_req, res) => setTimeout(() => json(200, { code: "Ok", routes: [{ distance: 1 }] })(_req, res), 3_000);
    const started = Date.now();
    expect(await failureOf(engine(150).metres(from, to, signal()))).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("is unavailable when the server sends headers and then stalls the body past the deadline", async () => {
    script = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"code":"Ok",');
      setTimeout(() => res.end('"routes":[{"distance":1}]}'), 3_000);
    };
    expect(await failureOf(engine(150).metres(from, to, signal()))).toBeInstanceOf(DependencyUnavailableError);
  });

  it("is unavailable when nothing listens at ROUTING_URL", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failureOf(engine(2_000, url).metres(from, to, signal()))).toBeInstanceOf(DependencyUnavailableError);
  });

  it("is unavailable on an answer that is not a route", async () => {
    for (const answer of [json(200, { code: "Ok", routes: [] }), json(200, { hello: "world" }), json(400, { code: "InvalidQuery" }), (_req: http.IncomingMessage, res: http.ServerResponse) => res.end("<html>")]) {
      script = answer;
      expect(await failureOf(engine().metres(from, to, signal()))).toBeInstanceOf(DependencyUnavailableError);
    }
  });

  it("reports points the road network does not connect as OUTSIDE_COVERAGE", async () => {
    script = json(400, { code: "NoRoute", message: "Impossible route between points" });
    const error = await failureOf(engine().metres(from, to, signal()));
    expect(error).toBeInstanceOf(FailedPreconditionError);
    expect(error).toMatchObject({ reason: "OUTSIDE_COVERAGE" });
  });

  it("stops waiting when the caller gives up", async () => {
    script = (_req, res) => setTimeout(() => json(200, { code: "Ok", routes: [{ distance: 1 }] })(_req, res), 3_000);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const started = Date.now();
    expect(await failureOf(engine(5_000).metres(from, to, caller.signal))).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
