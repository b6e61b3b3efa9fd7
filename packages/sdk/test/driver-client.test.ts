import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TawsilDriverClient } from "../src/index";
import { type FakeApi, fakeClock, startFakeApi, tokenAnswer } from "./fake-api";

let api: FakeApi;
beforeEach(async () => {
  api = await startFakeApi();
  api.script("/oauth/token", tokenAnswer("token-1"));
});
afterEach(() => api.close());

const client = () => new TawsilDriverClient({ baseUrl: api.baseUrl, clientId: "driver", clientSecret: "s3cret", fetch, clock: fakeClock() });

describe("the driver client's offers", () => {
  it("asks the gateway to hold the call with ?waitSeconds=N (a long poll), and sends no query without it", async () => {
    api.script("/v2/driver/offers", { status: 200, body: { offers: [] } });
    expect(await client().offers({ waitSeconds: 20 })).toEqual([]);
    await client().offers();
    expect(api.requests.filter((r) => r.path === "/v2/driver/offers").map((r) => r.query)).toEqual([{ waitSeconds: "20" }, {}]);
  });
});
