/**
 * Every RPC a service serves to its peers is called, and only by those its allow-list admits
 * (src/rpc/callers.ts): each allow-list entry has a call in the caller's code, each call in a
 * process's code is admitted, and an RPC without a caller is marked deprecated on its way out. The
 * calls are found the way a reader finds them: a process's source files (tests aside) that import
 * a service's generated module and call one of its methods, `.<method>(`.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { CallerPolicy } from "../../packages/rpc/src/caller-policy";
import { PROCESSES, sourceDir, type ProcessName } from "../deploy/facts";
import { ROOT } from "../deploy/kustomize";

const SERVICES = PROCESSES.filter((name) => name !== "gateway");

/** Every peer-facing service each process serves: the protos of its folder, admin listeners aside (operators call those). */
async function servedBy(name: ProcessName): Promise<{ module: string; service: DescService }[]> {
  const dir = path.join(ROOT, "proto", "tawsil", name, "v1");
  const files = readdirSync(dir).filter((file) => file.endsWith("_service.proto") && !file.endsWith("_admin_service.proto"));
  return (
    await Promise.all(
      files.map(async (file) => {
        const module = `@tawsil/proto/tawsil/${name}/v1/${file.replace(/\.proto$/, "_pb")}`;
        const exports = (await import(path.join(ROOT, "packages", "proto", "src", "gen", "tawsil", name, "v1", file.replace(/\.proto$/, "_pb.ts")))) as Record<string, unknown>;
        const services = Object.values(exports).filter((value): value is DescService => (value as { kind?: string } | null)?.kind === "service");
        return services.map((service) => ({ module, service }));
      }),
    )
  ).flat();
}

function sourcesOf(name: ProcessName): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "generated" && entry.name !== "node_modules") walk(full);
      } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) found.push({ file: path.relative(ROOT, full), text: readFileSync(full, "utf8") });
    }
  };
  walk(path.join(ROOT, sourceDir(name), "src"));
  return found;
}

const CALLERS = Object.fromEntries(
  await Promise.all(SERVICES.map(async (name) => [name, ((await import(path.join(ROOT, "services", name, "src", "rpc", "callers.ts"))) as { CALLERS: CallerPolicy }).CALLERS] as const)),
) as Record<string, CallerPolicy>;
const SERVED = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await servedBy(name)] as const)));
const SOURCES = Object.fromEntries(PROCESSES.map((name) => [name, sourcesOf(name)] as const));

/** The callee's procedures a process's code calls: in files importing the service's module, `.method(`. */
function calls(caller: ProcessName, module: string, service: DescService): string[] {
  const importing = SOURCES[caller]!.filter((source) => source.text.includes(`"${module}"`));
  return service.methods.filter((method) => importing.some((source) => source.text.includes(`.${method.localName}(`))).map((method) => `${service.typeName}/${method.name}`);
}

describe.each(SERVICES)("%s's RPCs", (callee) => {
  const rows = SERVED[callee]!.flatMap(({ module, service }) =>
    service.methods.map((method) => ({
      procedure: `${service.typeName}/${method.name}`,
      deprecated: method.deprecated,
      admitted: PROCESSES.filter((caller) => CALLERS[callee]!.allows(`${service.typeName}/${method.name}`, caller)),
      calledBy: PROCESSES.filter((caller) => caller !== callee && calls(caller, module, service).includes(`${service.typeName}/${method.name}`)),
    })),
  );

  it("are each called by exactly the processes their allow-list admits", () => {
    for (const row of rows) expect({ procedure: row.procedure, callers: row.calledBy }).toEqual({ procedure: row.procedure, callers: row.admitted });
  });

  it("have a caller, unless deprecated on their way out (then none is admitted)", () => {
    for (const row of rows) expect({ procedure: row.procedure, called: row.admitted.length > 0 }).toEqual({ procedure: row.procedure, called: !row.deprecated });
  });
});
