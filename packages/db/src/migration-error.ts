export type MigrationErrorKind =
  /** The migrations folder holds a migration without a migration.sql. */
  | "missing-script"
  /** Another runner (or `prisma migrate`) held the lock for longer than the timeout. */
  | "lock-timeout"
  /** No `_prisma_migrations` yet, but the database already has tables: it needs baselining. */
  | "database-not-empty"
  /** `_prisma_migrations` records a migration that started and neither finished nor was rolled back. */
  | "failed-migration-in-history"
  /** An applied migration's file was edited afterwards. */
  | "checksum-mismatch"
  /** A migration's SQL failed; its transaction was rolled back and nothing was recorded. */
  | "apply-failed";

/** Why the runner refused or stopped; `migrationName` names the migration at fault, if one is. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";

  constructor(
    readonly kind: MigrationErrorKind,
    message: string,
    readonly migrationName?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
