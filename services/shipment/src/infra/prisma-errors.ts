/** Prisma's unique-constraint violation (P2002) and the columns it names, as text to search. */
export function uniqueViolationTarget(error: unknown): string | null {
  if (typeof error !== "object" || error === null || !("code" in error) || error.code !== "P2002") return null;
  return JSON.stringify("meta" in error ? error.meta : null) + String(error instanceof Error ? error.message : "");
}

/** The PostgreSQL SQLSTATE of a failed raw query, wherever the driver adapter put it. */
export function sqlStateOf(error: unknown): string | null {
  const text = `${JSON.stringify(error)} ${error instanceof Error ? error.message : ""}`;
  if (text.includes("55P03") || /lock timeout/i.test(text)) return "55P03";
  return null;
}
