/** Prisma's unique-constraint violation (P2002), which a concurrent or repeated insert raises. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "P2002";
}
