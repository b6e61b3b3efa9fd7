/** What wakes the dispatcher's leader: a job that may be offerable, or a driver who may take one. */
export type WakeUp = { readonly kind: "job"; readonly id: string } | { readonly kind: "driver"; readonly id: string };

/** The notification payload: `job:<shipment id>` or `driver:<driver id>`. */
export const formatWakeUp = (wakeUp: WakeUp): string => `${wakeUp.kind}:${wakeUp.id}`;

export function parseWakeUp(payload: string): WakeUp | undefined {
  const [kind, id] = payload.split(":", 2);
  if (!id || (kind !== "job" && kind !== "driver")) return undefined;
  return { kind, id };
}
