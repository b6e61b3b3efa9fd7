import { create } from "@bufbuild/protobuf";
import { PublicStatus } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { GetPublicTrackingResponseSchema } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { describe, expect, it } from "vitest";
import { trackingPage } from "./page";

/** The page of a shipment in `status` whose answer (wrongly, for any status but one) carries a PIN. */
const page = (status: PublicStatus, lang: "en" | "ar" = "en") =>
  trackingPage(create(GetPublicTrackingResponseSchema, { status, recommendedRefreshSeconds: 5, deliveryPin: "0427" }), lang);

describe("the customer page's delivery PIN", () => {
  it("is shown while OUT_FOR_DELIVERY, in both languages", () => {
    expect(page(PublicStatus.OUT_FOR_DELIVERY)).toContain('<p class="pin" id="delivery-pin">0427</p>');
    expect(page(PublicStatus.OUT_FOR_DELIVERY, "ar")).toContain("رمز التسليم");
  });

  it("is never shown before or after, even when an answer carried one", () => {
    for (const status of [PublicStatus.CREATED, PublicStatus.ASSIGNED, PublicStatus.PICKED_UP, PublicStatus.DELIVERED, PublicStatus.FAILED, PublicStatus.CANCELLED]) {
      const html = page(status);
      expect(html, PublicStatus[status]).not.toContain("0427");
      expect(html, PublicStatus[status]).not.toContain("delivery-pin");
    }
  });

  it("is not shown while OUT_FOR_DELIVERY without a PIN", () => {
    const html = trackingPage(create(GetPublicTrackingResponseSchema, { status: PublicStatus.OUT_FOR_DELIVERY, recommendedRefreshSeconds: 5 }), "en");
    expect(html).not.toContain("delivery-pin");
  });
});
