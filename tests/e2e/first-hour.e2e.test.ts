import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TawsilClient, verifyWebhook, type ShipmentEvent } from "@tawsil/sdk";
import { validateResponsesFrom } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readOpenApiDocument } from "../../gateway/src/openapi/document";
import { runTawsil } from "../../packages/testing/src/operator-cli";
import { cloneCheckout, credentialsOf, type DevRun, freeDevPorts, makeDev, makeDevReset, untilRunning } from "./support/checkout";

/**
 * Issue 28: a merchant's first hour, as a newcomer does it. A fresh clone of this repository runs
 * `make dev` as written (its own Kafka, the sandbox fleet, local receivers admitted), and the
 * README's "Trying it" is run literally: every command of its `sh` blocks, in order, in one bash,
 * from the clone's folder, with the .dev/credentials.env that `make dev` wrote. Only RECEIVER_URL
 * is given, which the README lets the reader set, pointing at a receiver this test runs. A README
 * step or a `make dev` default that stops working fails here. Then the SDK is packed and installed
 * from the tarball into a project outside the workspace, and creates, reads and lists through the
 * same mesh.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const STARTUP_MS = 300_000;
let scratch: string;
let checkout: string;
let dev: DevRun | undefined;
let devEnv: Record<string, string>;
let credentials: Record<string, string>;

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tawsil-first-hour-")));
  checkout = path.join(scratch, "checkout");
  await cloneCheckout(ROOT, checkout);
  const ports = await freeDevPorts();
  devEnv = { DATABASE_ADMIN_URL: inject("databaseAdminUrl"), ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
  dev = makeDev(checkout, devEnv);
  await untilRunning(dev, STARTUP_MS);
  credentials = credentialsOf(checkout);
  validateResponsesFrom(credentials.TAWSIL_BASE_URL!, readOpenApiDocument());
}, STARTUP_MS + 240_000);
afterAll(async () => {
  await dev?.interrupt();
  if (checkout && existsSync(checkout)) await makeDevReset(checkout, devEnv);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 180_000);

/** The SDK as a merchant builds it, on this mesh's gateway (responses checked against the OpenAPI document). */
const sdkFor = (clientId: string, clientSecret: string) => new TawsilClient({ baseUrl: credentials.TAWSIL_BASE_URL!, clientId, clientSecret, retry: { maxAttempts: 1 } });

/** The `sh` blocks of one README section, in order. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README.md has a "${heading}" section`).toBeGreaterThan(-1);
  const rest = readme.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n#{2,3} /) === -1 ? undefined : rest.search(/\n#{2,3} /));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

function run(command: string, args: readonly string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd: opts.cwd, env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), ...opts.env }, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** A merchant's receiver: answers 204 and keeps each delivery's headers and raw body. */
class Receiver {
  readonly deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  private readonly server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      this.deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/tawsil`;
  }

  /** Every delivery verified with the secret (throws for one that fails). */
  verified(secret: string): ShipmentEvent[] {
    return this.deliveries.map(({ headers, body }) => verifyWebhook({ payload: body, headers, secret }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe("README.md, \"Trying it\", as pasted", () => {
  it("runs every command in order: token, profile, estimate, webhook, a photo, both creates, download, read, list, tracking, cancel", async () => {
    const blocks = shellBlocks(readFileSync(path.join(ROOT, "README.md"), "utf8"), "## Trying it");
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const state = path.join(scratch, "state");
    // After the README's commands (never among them): what the test checks afterwards.
    const script = ["set -euo pipefail", ...blocks, `printf '%s\\n' "$WEBHOOK_SECRET" "$SHIPMENT_ID" "$ASSET_ID" > ${JSON.stringify(state)}`].join("\n");
    const receiver = new Receiver();
    try {
      const result = await run("bash", ["-c", script], { cwd: checkout, env: { RECEIVER_URL: await receiver.listen() } });
      // curl --fail-with-body prints an error answer to stdout: its tail says which step failed.
      expect(result.stderr).toBe("");
      expect(result.code, result.stdout.slice(-2_000)).toBe(0);
      const [secret = "", shipmentId = "", assetId = ""] = readFileSync(state, "utf8").split("\n");
      expect(secret).toMatch(/^whsec_/);
      // The tracking page answered HTML, and the cancel (the last command) answered the cancelled shipment.
      expect(result.stdout).toMatch(/\n200 text\/html/);
      // The photo uploaded, named by the shape B create, and downloaded back through its signed URL.
      expect(result.stdout).toContain("downloaded: the same bytes");
      expect(JSON.parse(result.stdout.slice(result.stdout.lastIndexOf('{"id":')))).toMatchObject({ id: shipmentId, status: "CANCELLED" });

      // The receiver's deliveries all verify with the secret the registration answered.
      const deadline = Date.now() + 60_000;
      const types = () => receiver.verified(secret).map((event) => `${event.type}${event.data.shipmentId === shipmentId ? " A" : " B"}`);
      while (!["shipment.created A", "shipment.cancelled A", "shipment.created B"].every((t) => types().includes(t)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(types()).toEqual(expect.arrayContaining(["shipment.created A", "shipment.cancelled A", "shipment.created B"]));
      const createdB = receiver.verified(secret).find((event) => event.type === "shipment.created" && event.data.shipmentId !== shipmentId);
      expect(createdB?.data.timelineMedia).toEqual([{ mediaAssetId: assetId, purpose: "SHIPMENT_CREATION_EVIDENCE", sortOrder: 1 }]);
      const cancelled = receiver.verified(secret).find((event) => event.type === "shipment.cancelled");
      expect(cancelled?.data).toMatchObject({ shipmentId, status: "CANCELLED", reasonCode: "CUSTOMER_REQUEST" });
    } finally {
      await receiver.close();
    }
  }, 240_000);
});

describe("the SDK from another project", () => {
  it("packs to built JavaScript with types, installs from the tarball outside the workspace, and creates, reads and lists", async () => {
    const project = path.join(scratch, "merchant-app");
    mkdirSync(project, { recursive: true });
    const packed = await run("npm", ["pack", "--pack-destination", scratch], { cwd: path.join(ROOT, "packages", "sdk") });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = path.join(scratch, packed.stdout.trim().split("\n").pop()!);
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "merchant-app", private: true, type: "module" }));
    const installed = await run("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: project, timeoutMs: 180_000 });
    expect(installed.code, installed.stderr).toBe(0);

    // The types resolve from the installed package (dist/*.d.ts), as a merchant's TypeScript sees them.
    writeFileSync(
      path.join(project, "check.ts"),
      `import { TawsilClient, type ShipmentB } from "@tawsil/sdk";\nconst client: TawsilClient = new TawsilClient({ baseUrl: "https://example.test", clientId: "a", clientSecret: "b" });\nexport const state = (s: ShipmentB): string => s.state;\nvoid client;\n`,
    );
    writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, types: [] }, files: ["check.ts"] }));
    const typed = await run(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: project });
    expect(typed.stdout + typed.stderr).toBe("");

    writeFileSync(
      path.join(project, "app.mjs"),
      `import { TawsilClient } from "@tawsil/sdk";
const env = process.env;
const tawsil = new TawsilClient({ baseUrl: env.TAWSIL_BASE_URL, clientId: env.TAWSIL_CLIENT_ID, clientSecret: env.TAWSIL_CLIENT_SECRET });
const { shipment } = await tawsil.shipments.create({
  reference: "SDK-" + Date.now(),
  pickup: { savedLocationCode: env.TAWSIL_SAVED_LOCATION },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  recipient: { name: "Sara", mobile: "0512345678" },
});
const read = await tawsil.shipments.get(shipment.id);
const listed = [];
for await (const s of tawsil.shipments.list({ limit: 10 })) if (listed.push(s.shipmentId) >= 10) break;
console.log(JSON.stringify({ created: shipment.id, read: read.shipment.shipmentId, listed }));
`,
    );
    const { TAWSIL_BASE_URL = "", TAWSIL_CLIENT_ID = "", TAWSIL_CLIENT_SECRET = "", TAWSIL_SAVED_LOCATION = "" } = credentials;
    const ran = await run("node", ["app.mjs"], { cwd: project, env: { TAWSIL_BASE_URL, TAWSIL_CLIENT_ID, TAWSIL_CLIENT_SECRET, TAWSIL_SAVED_LOCATION } });
    expect(ran.stderr).toBe("");
    const answer = JSON.parse(ran.stdout) as { created: string; read: string; listed: string[] };
    expect(answer.read).toBe(answer.created);
    expect(answer.listed).toContain(answer.created);
  }, 300_000);
});

describe("a merchant an operator onboarded without a rate card", () => {
  it("is told that no commercial terms are agreed, not that no driver is on shift", async () => {
    const tawsil = (...args: string[]) => runTawsil(args, credentials);
    expect((await tawsil("merchant", "create", "--code", "NO-TERMS", "--display-name", "No Terms", "--legal-name", "No Terms Co")).code).toBe(0);
    expect((await tawsil("merchant", "status", "NO-TERMS", "ACTIVE")).code).toBe(0);
    const client = await tawsil("client", "create", "NO-TERMS", "--name", "backend", "--scopes", "shipments:read,shipments:write");
    const value = (label: string) => client.out.find((line) => line.startsWith(`${label} `))?.slice(label.length).trim() ?? "";
    expect((await tawsil("merchants", "list")).out.find((line) => line.startsWith("NO-TERMS "))).toMatch(/no rate card/);

    const merchant = sdkFor(value("client_id"), value("client_secret"));
    const refused = await merchant.estimates
      .create({ pickup: { latitude: 24.7136, longitude: 46.6753 }, delivery: { latitude: 24.774265, longitude: 46.738586 } })
      .then(() => undefined, (error: unknown) => error as { status: number; code: string; detail?: string });
    expect(refused).toMatchObject({ status: 422, detail: "No commercial terms are agreed for this merchant yet; contact Tawsil." });
    const create = await merchant.shipments
      .create({
        reference: "NO-TERMS-1",
        pickup: { latitude: 24.7136, longitude: 46.6753 },
        destination: { latitude: 24.774265, longitude: 46.738586 },
        recipient: { name: "Sara", mobile: "0512345678" },
      })
      .then(() => undefined, (error: unknown) => error as { status: number; code: string; detail?: string });
    expect(create).toMatchObject({ status: 422, detail: "No commercial terms are agreed for this merchant yet; contact Tawsil." });
  }, 120_000);
});
