import { FailedPreconditionError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import type { ShipmentStore } from "./ports";
import { GetSandboxDeliveryProof } from "./sandbox-delivery-proof";

describe("what a sandbox delivery must prove", () => {
  it("is never told outside the sandbox: SANDBOX_ONLY before any read", async () => {
    const store = new Proxy({}, { get: () => () => Promise.reject(new Error("production must refuse before reading")) }) as ShipmentStore;
    const refusal = await new GetSandboxDeliveryProof({ store, environment: "production" }).execute("6f1c2a1e-7a51-4d1b-9c49-0c2d2f5b8a11").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(FailedPreconditionError);
    expect(refusal).toMatchObject({ reason: "SANDBOX_ONLY" });
  });
});
