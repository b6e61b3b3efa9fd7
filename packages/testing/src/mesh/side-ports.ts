/** The ports of a mesh besides each process's own: placed from a first port, or picked free. */
import { ADMIN_SERVICES, SERVICES, type AdminServiceName, type ServiceName } from "@tawsil/topology";

/** The ports beside each process's own: the admin listeners and every process's /metrics. */
export interface SidePorts {
  readonly admin: Readonly<Record<AdminServiceName, number>>;
  readonly metrics: Readonly<Record<ServiceName | "gateway", number>>;
}

/**
 * Side ports next to services numbered from `first` (make dev, a bench on fixed ports): the
 * admin listener of the service at first+i on first+10+i, its metrics on first+20+i, the
 * gateway's metrics on first+26. So FIRST_SERVICE_PORT alone moves a whole mesh.
 */
export function sidePortsFrom(first: number): SidePorts {
  const at = (name: ServiceName) => SERVICES.indexOf(name);
  return {
    admin: Object.fromEntries(ADMIN_SERVICES.map((name) => [name, first + 10 + at(name)])) as Record<AdminServiceName, number>,
    metrics: { ...Object.fromEntries(SERVICES.map((name, i) => [name, first + 20 + i])), gateway: first + 20 + SERVICES.length } as Record<ServiceName | "gateway", number>,
  };
}

/** Side ports each picked by `free` (tests and benches on free ports). */
export async function freeSidePorts(free: () => Promise<number>): Promise<SidePorts> {
  const admin: Record<string, number> = {};
  const metrics: Record<string, number> = {};
  for (const name of ADMIN_SERVICES) admin[name] = await free();
  for (const name of [...SERVICES, "gateway"]) metrics[name] = await free();
  return { admin, metrics } as SidePorts;
}
