/**
 * PostgreSQL over verify-full (deploy/components/postgres-verify-full): in production, every
 * container that connects to a database (each service's server, its migration wait, each migration
 * Job) requires verify-full and reads the CA from the ConfigMap `postgres-ca`, mounted read-only.
 * packages/db/test/verify-full.int.test.ts shows what the two settings do against a TLS server.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ofKind, podSpec } from "./facts";
import { DEPLOY, podContainers, render } from "./kustomize";
import type { Container, Manifest } from "./manifest-types";

const URL_SETTINGS = ["DATABASE_URL", "MIGRATION_DATABASE_URL"];
const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

/** Each container that reads a database url, named by its workload. */
function connecting(manifests: readonly Manifest[]): { where: string; container: Container; manifest: Manifest }[] {
  return [...ofKind(manifests, "Deployment"), ...ofKind(manifests, "Job")].flatMap((manifest) =>
    podContainers(manifest)
      .filter((container) => (container.env ?? []).some((e) => URL_SETTINGS.includes(e.name)))
      .map((container) => ({ where: `${manifest.kind}/${manifest.metadata.name} ${container.name}`, container, manifest })),
  );
}

describe("PostgreSQL TLS in production", () => {
  const manifests = render(path.join(DEPLOY, "overlays", "production"));
  const containers = connecting(manifests);

  it("finds every connecting container: 5 servers, their 5 migration waits and 5 migration Jobs", () => {
    expect(containers).toHaveLength(15);
  });

  it.each(containers.map((c) => [c.where, c] as const))("requires verify-full in %s, with the CA mounted read-only from the ConfigMap postgres-ca", (_where, { container, manifest }) => {
    const env = envOf(container);
    expect(env.DATABASE_SSL_MODE).toBe("verify-full");
    const rootCert = env.DATABASE_SSL_ROOT_CERT ?? "";
    const mount = (container.volumeMounts ?? []).find((m) => rootCert.startsWith(`${m.mountPath}/`));
    expect(mount, rootCert).toMatchObject({ readOnly: true });
    const volume = podSpec(manifest).volumes?.find((v) => v.name === mount?.name);
    expect(volume?.configMap?.name).toBe("postgres-ca");
  });
});

describe("PostgreSQL TLS in the sandbox", () => {
  it("sets the two settings together or not at all in each connecting container", () => {
    for (const { where, container } of connecting(render(path.join(DEPLOY, "overlays", "sandbox")))) {
      const env = envOf(container);
      expect(env.DATABASE_SSL_MODE === undefined, where).toBe(env.DATABASE_SSL_ROOT_CERT === undefined);
    }
  });
});
