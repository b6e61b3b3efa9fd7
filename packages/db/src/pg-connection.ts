import pg from "pg";

/**
 * Runs `fn` on one short-lived connection and always closes it. Administrative work (creating
 * databases, migrating, reading the catalog) uses a single session on purpose: advisory locks and
 * transactions belong to a session, which a pool would hand out at random.
 */
export async function withConnection<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // An idle connection can still die (server restart); without a listener that would crash the
  // process instead of failing the query in flight.
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
