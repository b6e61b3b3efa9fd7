import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const eslint = new ESLint({ cwd: ROOT });

/** The layer violations eslint reports for `code` as if it were the file at `file` (relative to the root). */
async function layerViolations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the layer rules of the house", () => {
  it("keep transport, database, messaging and generated code out of domain/", async () => {
    const code = [
      `import type { PrismaClient } from "@prisma/client";`,
      `import type { Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";`,
      `import { Kafka } from "kafkajs";`,
      `import { ConnectError } from "@connectrpc/connect";`,
      `import type { Row } from "../infra/prisma/generated/client";`,
      `export type All = [PrismaClient, Shipment, Kafka, ConnectError, Row];`,
    ].join("\n");
    const violations = await layerViolations("services/shipment/src/domain/violating.ts", code);
    expect(violations.map((m) => m.split("'")[1])).toEqual([
      "@prisma/client",
      "@tawsil/proto/tawsil/shipment/v1/shipment_pb",
      "kafkajs",
      "@connectrpc/connect",
      "../infra/prisma/generated/client",
      "../infra/prisma/generated/client",
    ]);
  });

  it("keep app/ off infra/, type-only imports of generated types included", async () => {
    const code = `import type { DispatchJob } from "../infra/prisma/generated/client";\nexport type Job = DispatchJob;\n`;
    const violations = await layerViolations("services/dispatch/src/app/violating.ts", code);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]).toContain("app/ imports no infra/ module");
  });

  it("keep rpc/ to mapping and delegating: no adapter, no database", async () => {
    const code = `import { PrismaMerchantStore } from "../infra/prisma-merchant-store";\nimport { withTransaction } from "@tawsil/db";\nexport const wired = [PrismaMerchantStore, withTransaction];\n`;
    const violations = await layerViolations("services/merchant/src/rpc/violating.ts", code);
    expect(violations.map((m) => m.split("'")[1])).toEqual(["../infra/prisma-merchant-store", "@tawsil/db"]);
  });

  it("let each layer import what it may: domain its own and the shared vocabulary, app its ports", async () => {
    expect(await layerViolations("services/shipment/src/domain/fine.ts", `import { isUuid } from "@tawsil/domain";\nimport { canAuthenticate } from "./merchant-status";\nexport const used = [isUuid, canAuthenticate];\n`)).toEqual([]);
    expect(await layerViolations("services/dispatch/src/app/fine.ts", `import type { DispatchStore } from "./ports";\nimport { newJob } from "../domain/dispatch-job";\nexport type S = DispatchStore;\nexport const used = newJob;\n`)).toEqual([]);
  });

  it("keep consumers/ off infra/ and the database package: their transaction's adapters come from server.ts", async () => {
    const code = [
      `import { SqlJobWork } from "../infra/sql-job-work";`,
      `import type { TransactionClient } from "@tawsil/db";`,
      `import type { PrismaClient } from "../infra/prisma/generated/client";`,
      `import { driverService } from "../rpc/driver-service";`,
      `export const wired = [SqlJobWork, driverService];`,
      `export type T = TransactionClient<PrismaClient>;`,
    ].join("\n");
    const violations = await layerViolations("services/dispatch/src/consumers/violating.ts", code);
    expect(violations.map((m) => m.split("'")[1])).toEqual(["../infra/sql-job-work", "@tawsil/db", "../infra/prisma/generated/client", "../infra/prisma/generated/client", "../rpc/driver-service"]);
    const fine = `import type { EventHandler, SqlClient } from "@tawsil/events";\nimport type { JobWork } from "../app/ports";\nexport type H<Tx extends SqlClient> = (work: (tx: Tx) => JobWork) => EventHandler<Tx>;\n`;
    expect(await layerViolations("services/dispatch/src/consumers/fine.ts", fine)).toEqual([]);
  });

  it("keep infra/ from calling an edge back: no rpc/ or consumers/ import, a shared codec lives in messages/", async () => {
    const code = `import { snapshotOf } from "../rpc/shipment-message";\nimport { TOPICS } from "../consumers/projection-consumer";\nexport const used = [snapshotOf, TOPICS];\n`;
    expect((await layerViolations("services/shipment/src/infra/violating.ts", code)).map((m) => m.split("'")[1])).toEqual(["../rpc/shipment-message", "../consumers/projection-consumer"]);
    const fine = `import { shipmentToProto } from "../messages/shipment-message";\nimport { createPeerClient } from "@tawsil/rpc";\nexport const used = [shipmentToProto, createPeerClient];\n`;
    expect(await layerViolations("services/shipment/src/infra/fine.ts", fine)).toEqual([]);
  });

  it("keep messages/ to the domain: no app/, adapter or edge", async () => {
    const code = `import type { ShipmentStore } from "../app/ports";\nimport { SHIPMENT_TOPIC } from "../infra/shipment-events";\nexport const used = SHIPMENT_TOPIC;\nexport type S = ShipmentStore;\n`;
    expect((await layerViolations("services/shipment/src/messages/violating.ts", code)).map((m) => m.split("'")[1])).toEqual(["../app/ports", "../infra/shipment-events"]);
  });
});

