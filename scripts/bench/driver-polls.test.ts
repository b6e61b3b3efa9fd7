import { describe, expect, it } from "vitest";
import { offerPollsIn } from "./driver-polls";

describe("the drivers' long polls the gateway answered", () => {
  it("sums GET /v2/driver/offers over every status, and nothing else", () => {
    const metrics = [
      "# HELP http_server_request_duration_seconds Time to answer an HTTP request, by method, route template and status code.",
      'http_server_request_duration_seconds_bucket{le="+Inf",service="gateway",method="GET",route="/v2/driver/offers",status_code="200"} 54',
      'http_server_request_duration_seconds_count{service="gateway",method="GET",route="/v2/driver/offers",status_code="200"} 54',
      'http_server_request_duration_seconds_count{service="gateway",method="GET",route="/v2/driver/offers",status_code="503"} 3',
      'http_server_request_duration_seconds_count{service="gateway",method="GET",route="/v2/driver/offers/:offerId",status_code="200"} 7',
      'http_server_request_duration_seconds_count{service="gateway",method="POST",route="/v2/driver/offers",status_code="405"} 1',
      'http_server_request_duration_seconds_count{service="gateway",method="GET",route="/v2/driver/jobs",status_code="200"} 54',
    ].join("\n");
    expect(offerPollsIn(metrics)).toBe(57);
    expect(offerPollsIn("")).toBe(0);
  });
});
