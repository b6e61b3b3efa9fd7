/**
 * The Backstage catalog (catalog-info.yaml at the root and in each process's folder) and
 * .github/CODEOWNERS: every file parses, every reference resolves to an entity or a file that
 * exists, each process is one Component owned by its team, and CODEOWNERS gives each folder to
 * the team the catalog names.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { FLEET, ownsDatabase, TOPICS, type ServiceName } from "../../packages/topology/src";
import { ALL_PROCESSES, PROCESSES, sourceDir, teamOf } from "../deploy/facts";
import { ROOT } from "../deploy/kustomize";

interface Entity {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown> & { owner?: string; targets?: string[]; definition?: { $text?: string }; providesApis?: string[]; consumesApis?: string[]; dependsOn?: string[] };
}
interface Located { file: string; entity: Entity }

function read(file: string): Entity[] {
  return parseAllDocuments(readFileSync(path.join(ROOT, file), "utf8")).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
    return doc.toJS() as Entity;
  });
}

const rootEntities = read("catalog-info.yaml");
const location = rootEntities.find((e) => e.kind === "Location");
const files = (location?.spec.targets ?? []).map((target) => path.normalize(target));
const all: Located[] = [...rootEntities.map((entity) => ({ file: "catalog-info.yaml", entity })), ...files.flatMap((file) => read(file).map((entity) => ({ file, entity })))];
const ref = (e: Entity) => `${e.kind.toLowerCase()}:${e.metadata.name}`;
const refs = new Set(all.map(({ entity }) => ref(entity)));
const componentOf = (name: string) => all.find(({ entity }) => entity.kind === "Component" && entity.metadata.name === name);

describe("the Backstage catalog", () => {
  it("lists one catalog-info.yaml per process, each a file that exists", () => {
    expect(files.sort()).toEqual(ALL_PROCESSES.map((name) => path.join(sourceDir(name), "catalog-info.yaml")).sort());
    for (const file of files) expect(existsSync(path.join(ROOT, file)), file).toBe(true);
  });

  it("has entities of backstage.io/v1alpha1 with unique, valid names", () => {
    for (const { file, entity } of all) {
      expect(entity.apiVersion, file).toBe("backstage.io/v1alpha1");
      expect(entity.metadata.name, file).toMatch(/^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/);
      expect(entity.metadata.name.length, file).toBeLessThanOrEqual(63);
    }
    expect(all.length).toBe(refs.size);
  });

  it("references only entities it defines: owners, systems, provided and consumed APIs, dependencies", () => {
    for (const { file, entity } of all) {
      const spec = entity.spec;
      const wanted = [spec.owner, typeof spec.system === "string" ? `system:${spec.system}` : undefined, ...(spec.providesApis ?? []), ...(spec.consumesApis ?? []), ...(spec.dependsOn ?? [])];
      for (const target of wanted.filter((w): w is string => w !== undefined)) expect(refs.has(target), `${file} ${ref(entity)} -> ${target}`).toBe(true);
    }
  });

  it("points each API's definition at a file that exists and declares that API", () => {
    const apis = all.filter(({ entity }) => entity.kind === "API");
    expect(apis.length).toBeGreaterThan(PROCESSES.length);
    for (const { file, entity } of apis) {
      const definition = path.join(path.dirname(file), entity.spec.definition?.$text ?? "");
      expect(existsSync(path.join(ROOT, definition)), `${entity.metadata.name}: ${definition}`).toBe(true);
      const text = readFileSync(path.join(ROOT, definition), "utf8");
      if (entity.spec.type === "grpc") expect(text, definition).toMatch(/^service \w+Service \{/m);
      else expect(entity.spec.type === "openapi" && /^openapi: 3\./m.test(text), definition).toBe(true);
    }
  });

  it("gives every gRPC service of the protos to exactly one API entity, owned by the team of its proto folder", () => {
    const grpc = all.filter(({ entity }) => entity.kind === "API" && entity.spec.type === "grpc");
    const defined = grpc.map(({ file, entity }) => path.normalize(path.join(path.dirname(file), entity.spec.definition?.$text ?? "")));
    expect(defined.sort()).toEqual(serviceProtos().sort());
    for (const { file, entity } of grpc) {
      const svc = /proto\/tawsil\/(\w+)\//.exec(entity.spec.definition?.$text ?? "")?.[1];
      expect(entity.spec.owner, file).toBe(`group:team-${svc}`);
    }
  });
});

/** Every proto/tawsil/<service>/v1/*_service.proto. */
function serviceProtos(): string[] {
  return PROCESSES.filter((p) => p !== "gateway").flatMap((svc) => {
    const dir = path.join("proto", "tawsil", svc, "v1");
    return readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith("_service.proto")).map((f) => path.join(dir, f));
  });
}

describe.each(ALL_PROCESSES)("%s in the catalog", (name) => {
  const component = componentOf(name);

  it("is one Component owned by its team, in its own folder, in production", () => {
    expect(component?.file).toBe(path.join(sourceDir(name), "catalog-info.yaml"));
    expect(component?.entity.spec).toMatchObject({ type: "service", lifecycle: "production", owner: `group:${teamOf(name)}`, system: "tawsil" });
  });

  it("depends on its own database (when it owns data) and on every topic its README says it produces or consumes", () => {
    const readme = readFileSync(path.join(ROOT, sourceDir(name), "README.md"), "utf8");
    const events = readme.slice(readme.indexOf("## Events"), readme.indexOf("## Settings"));
    const topics = TOPICS.map((t) => t.topic).filter((topic) => events.includes(`\`${topic}\``));
    const hasDatabase = name !== "gateway" && name !== FLEET && ownsDatabase(name as ServiceName);
    const expected = [...(hasDatabase ? [`resource:${name}-database`] : []), ...topics.map((topic) => `resource:${topic}`)];
    expect([...(component?.entity.spec.dependsOn ?? [])].sort()).toEqual(expected.sort());
  });
});

describe(".github/CODEOWNERS", () => {
  const rules = readFileSync(path.join(ROOT, ".github", "CODEOWNERS"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.trim().split(/\s+/));
  /** GitHub's rule for the patterns used here: the last match wins; "/dir/" covers everything below it. */
  const ownersOf = (file: string) => rules.filter(([pattern]) => pattern === "*" || (pattern?.endsWith("/") ? `/${file}`.startsWith(pattern) : `/${file}` === pattern)).at(-1)?.slice(1);

  it.each(PROCESSES)("gives %s's folder, protos, manifests and alerts to the team its catalog names", (name) => {
    const team = `@tawsil/${componentOf(name)?.entity.spec.owner?.replace(/^group:/, "")}`;
    expect(ownersOf(`${sourceDir(name)}/src/main.ts`)).toEqual([team]);
    expect(ownersOf(`deploy/base/${name}.yaml`)).toEqual([team, "@tawsil/team-platform"]);
    expect(ownersOf(`deploy/base/alerts/${name}.yaml`)).toEqual([team, "@tawsil/team-platform"]);
    if (name !== "gateway") expect(ownersOf(`proto/tawsil/${name}/v1/events.proto`)).toEqual([team]);
  });

  it("gives the sandbox fleet's folder and its sandbox overlay to the team that owns dispatch, as its catalog says", () => {
    const team = `@tawsil/${componentOf(FLEET)?.entity.spec.owner?.replace(/^group:/, "")}`;
    expect(team).toBe(`@tawsil/${teamOf(FLEET)}`);
    expect(ownersOf(`${sourceDir(FLEET)}/src/main.ts`)).toEqual([team]);
    expect(ownersOf("deploy/overlays/sandbox/fleet/sandbox-fleet.yaml")).toEqual([team, "@tawsil/team-platform"]);
    expect(ownersOf("deploy/overlays/sandbox/fleet/alerts.yaml")).toEqual([team, "@tawsil/team-platform"]);
  });

  it("gives what every process shares to the platform team", () => {
    for (const shared of ["packages/rpc/src/metrics.ts", "deploy/base/kustomization.yaml", "scripts/build.ts", "Makefile", "proto/tawsil/common/v1/geo.proto"]) {
      expect(ownersOf(shared), shared).toEqual(["@tawsil/team-platform"]);
    }
  });

  it("names only teams the catalog defines, on paths that exist", () => {
    for (const [pattern, ...owners] of rules) {
      if (pattern !== "*") expect(existsSync(path.join(ROOT, pattern ?? "")), pattern).toBe(true);
      for (const owner of owners) expect(refs.has(`group:${owner.replace(/^@tawsil\//, "")}`), owner).toBe(true);
    }
  });
});
