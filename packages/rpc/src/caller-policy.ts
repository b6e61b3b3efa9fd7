import type { DescService } from "@bufbuild/protobuf";

/** The callers a method admits, by process name (drivers reach dispatch through the gateway). */
export type CallerName = "gateway" | "merchant" | "shipment" | "pricing" | "dispatch" | "tracking" | "webhook";

/** Every method of a service, each with the callers it admits: a method added later fails to compile until someone decides. */
export type MethodCallers<S extends DescService> = { readonly [M in keyof S["method"]]: readonly CallerName[] };

export interface ServiceCallers {
  readonly typeName: string;
  /** Procedure (`<typeName>/<Method>`) to the callers it admits; undefined for an operator service. */
  readonly methods: ReadonlyMap<string, ReadonlySet<CallerName>> | undefined;
}

/** A service whose methods admit exactly the callers named for each. */
export function callersOf<S extends DescService>(service: S, callers: MethodCallers<S>): ServiceCallers {
  const methods = new Map<string, ReadonlySet<CallerName>>();
  for (const [local, method] of Object.entries(service.method)) {
    methods.set(`${service.typeName}/${method.name}`, new Set(callers[local as keyof S["method"]]));
  }
  return { typeName: service.typeName, methods };
}

/**
 * An operator's service (the admin RPCs): called by the admin CLIs, not by a service, so no service
 * token is asked. What guards it is where it listens (the admin listener, reached by port-forward).
 */
export function operatorService(service: DescService): ServiceCallers {
  return { typeName: service.typeName, methods: undefined };
}

/** The standard health protocol stays open to probes and load balancers. */
const OPEN_SERVICES = new Set(["grpc.health.v1.Health"]);

/** Which caller may call which procedure of one process; anything not listed is refused. */
export class CallerPolicy {
  readonly #byProcedure = new Map<string, ReadonlySet<CallerName>>();
  readonly #open = new Set(OPEN_SERVICES);

  constructor(readonly services: readonly ServiceCallers[]) {
    for (const service of services) {
      if (service.methods === undefined) this.#open.add(service.typeName);
      else for (const [procedure, callers] of service.methods) this.#byProcedure.set(procedure, callers);
    }
  }

  /** True for procedures that ask no service token (health, operator services). */
  isOpen(typeName: string): boolean {
    return this.#open.has(typeName);
  }

  allows(procedure: string, caller: string): boolean {
    return this.#byProcedure.get(procedure)?.has(caller as CallerName) ?? false;
  }

  /** Every caller any procedure admits: what the process's network policy must let in. */
  callers(): CallerName[] {
    return [...new Set([...this.#byProcedure.values()].flatMap((set) => [...set]))].sort();
  }
}
