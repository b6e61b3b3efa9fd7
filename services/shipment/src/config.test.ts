import { problemSettings } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const KEY = Buffer.alloc(32, 3).toString("base64");
const BASE = {
  PORT: "7002",
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_shipment",
  KAFKA_BROKERS: "127.0.0.1:9092",
  MERCHANT_SERVICE_URL: "http://127.0.0.1:7001",
  PRICING_SERVICE_URL: "http://127.0.0.1:7003",
  TRACKING_LINK_SECRET: KEY,
  CURSOR_SECRET: KEY,
  S3_BUCKET: "tawsil-sandbox-media",
  S3_ACCESS_KEY_ID: "access",
  S3_SECRET_ACCESS_KEY: "secret",
};

describe("shipment configuration", () => {
  it("keeps idempotency records 24 h, unattached media 24 h and attached media 180 days by default (decisions.md sections 3, 16, 18)", () => {
    const config = readConfig(BASE);
    expect(config).toMatchObject({ IDEMPOTENCY_RETENTION_HOURS: 24, MEDIA_UNATTACHED_RETENTION_HOURS: 24, MEDIA_ATTACHED_RETENTION_DAYS: 180, OUTBOX_RETENTION_DAYS: 7, S3_ENDPOINT: "", S3_FORCE_PATH_STYLE: false, MEDIA_PRESIGN_SECONDS: 300 });
    expect(config.TRACKING_LINK_SECRET).toHaveLength(32);
  });

  it("requires both peers, both secrets and the bucket's credentials", () => {
    expect(problemSettings(readConfig, { PORT: "7002", DATABASE_URL: BASE.DATABASE_URL, KAFKA_BROKERS: BASE.KAFKA_BROKERS })).toEqual([
      "CURSOR_SECRET",
      "MERCHANT_SERVICE_URL",
      "PRICING_SERVICE_URL",
      "S3_ACCESS_KEY_ID",
      "S3_BUCKET",
      "S3_SECRET_ACCESS_KEY",
      "TRACKING_LINK_SECRET",
    ]);
  });

  it("names every bad setting at once: a short secret, a bucket name S3 refuses, a presign beyond an hour", () => {
    const env = { ...BASE, CURSOR_SECRET: Buffer.alloc(8).toString("base64"), S3_BUCKET: "Tawsil_Media", MEDIA_PRESIGN_SECONDS: "7200", S3_FORCE_PATH_STYLE: "yes" };
    expect(problemSettings(readConfig, env)).toEqual(["CURSOR_SECRET", "MEDIA_PRESIGN_SECONDS", "S3_BUCKET", "S3_FORCE_PATH_STYLE"]);
  });
});
