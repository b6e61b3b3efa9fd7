import { describe, expect, it } from "vitest";
import { ANY_VERSION, changeEndpoint, isRegistrationOf, isRotationFrom, newEndpoint, rotateSecret, signingSecrets } from "./endpoint";

const t0 = new Date("2026-11-27T10:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const HOUR = 3600_000;
const registered = newEndpoint({ id: "e", merchantId: "m", url: "https://hooks.example/x", eventTypes: ["shipment.delivered", "shipment.created"], secret: "s1", now: t0 });

describe("rotation", () => {
  it("keeps one previous secret: a second rotation within 24 h stops the first secret at once (as the OpenAPI document says)", () => {
    const once = rotateSecret(registered, 1n, "s2", at(HOUR));
    expect(signingSecrets(once, at(2 * HOUR))).toEqual(["s2", "s1"]);
    const twice = rotateSecret(once, 2n, "s3", at(2 * HOUR));
    expect(signingSecrets(twice, at(2 * HOUR))).toEqual(["s3", "s2"]);
    expect(twice.previousSecretValidUntil).toEqual(at(26 * HOUR));
    expect(signingSecrets(twice, at(26 * HOUR))).toEqual(["s3"]);
  });

  it("recognises a retry of the rotation that made the endpoint, and nothing else", () => {
    const rotated = rotateSecret(registered, 1n, "s2", at(HOUR));
    expect(isRotationFrom(rotated, 1n, at(HOUR + 1))).toBe(true);
    expect(isRotationFrom(rotated, 2n, at(HOUR + 1))).toBe(false); // a new rotation, not a retry
    expect(isRotationFrom(rotated, ANY_VERSION, at(HOUR + 1))).toBe(false); // `*` rotates every time
    expect(isRotationFrom(rotated, 1n, at(25 * HOUR))).toBe(false); // past its 24 h
    expect(isRotationFrom(changeEndpoint(rotated, 2n, { status: "PAUSED" }, at(HOUR + 5)), 1n, at(HOUR + 6))).toBe(false); // changed since
    expect(isRotationFrom(changeEndpoint(registered, 1n, { status: "PAUSED" }, at(HOUR)), 1n, at(HOUR + 1))).toBe(false); // not a rotation
  });
});

describe("registration", () => {
  it("recognises the same registration (events in any order) while the endpoint is unchanged and at most 24 h old", () => {
    expect(isRegistrationOf(registered, "https://hooks.example/x", ["shipment.created", "shipment.delivered"], at(HOUR))).toBe(true);
    expect(isRegistrationOf(registered, "https://hooks.example/y", ["shipment.created", "shipment.delivered"], at(HOUR))).toBe(false);
    expect(isRegistrationOf(registered, "https://hooks.example/x", ["shipment.created"], at(HOUR))).toBe(false);
    expect(isRegistrationOf(registered, "https://hooks.example/x", ["shipment.created", "shipment.delivered"], at(24 * HOUR))).toBe(false);
    expect(isRegistrationOf(changeEndpoint(registered, ANY_VERSION, { status: "PAUSED" }, at(1)), "https://hooks.example/x", ["shipment.created", "shipment.delivered"], at(HOUR))).toBe(false);
  });
});
