/**
 * deploy/README.md's copy of the Kafka cluster CA: its go-template, run by the real kubectl on a
 * Secret shaped as Strimzi's tawsil-cluster-ca-cert is during a CA renewal, keeps both certificates
 * (the brokers still on the old CA and those on the new one are both trusted) and nothing else.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { ensureKubectl } from "../../packages/testing/src/kubectl";
import { DEPLOY } from "./kustomize";

const readme = readFileSync(path.join(DEPLOY, "README.md"), "utf8");
const section = /\n## Kafka: TLS, users and ACLs\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
const template = /get secret tawsil-cluster-ca-cert \\\n\s+-o go-template='([^']+)'/.exec(section)?.[1];

const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-kafka-ca-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("bundles every CA certificate of Strimzi's Secret, and neither its PKCS#12 store nor its password", () => {
  expect(template, "the README's go-template").toBeDefined();
  const files = { "ca.crt": "-----BEGIN CERTIFICATE-----\nNEW\n-----END CERTIFICATE-----\n", "ca-2026-11-27.crt": "-----BEGIN CERTIFICATE-----\nOLD\n-----END CERTIFICATE-----\n", "ca.p12": "PKCS12-BYTES" };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const run = spawnSync(
    ensureKubectl(),
    ["create", "secret", "generic", "tawsil-cluster-ca-cert", ...Object.keys(files).map((name) => `--from-file=${name}=${path.join(dir, name)}`), "--from-literal=ca.password=the-p12-password", "--dry-run=client", "-o", `go-template=${template}`],
    { encoding: "utf8" },
  );
  expect(run.stderr).toBe("");
  expect(run.stdout).toContain(files["ca.crt"]);
  expect(run.stdout).toContain(files["ca-2026-11-27.crt"]);
  expect(run.stdout).not.toMatch(/PKCS12-BYTES|the-p12-password/);
});
