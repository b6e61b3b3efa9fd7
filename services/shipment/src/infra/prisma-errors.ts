/** The PostgreSQL SQLSTATE of a failed raw query, wherever the driver adapter put it. */
export function sqlStateOf(error: unknown): string | null {
  const text = `${JSON.stringify(error)} ${error instanceof Error ? error.message : ""}`;
  if (text.includes("55P03") || /lock timeout/i.test(text)) return "55P03";
  return null;
}
