/**
 * `./tawsil dead-letters <service> ...` through DeadLetterAdminService (an in-memory router: the
 * RPCs as the admin listener serves them) over a real database: list, show, replay in order, a
 * replay that fails again, discard, and the refusals an operator can meet.
 */
import { randomUUID } from "node:crypto";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { DeadLetterAdmin, deadLetterAdminRoutes, runDeadLetterCli, type ConsumedEvent, type SqlClient } from "@tawsil/events";
import { DeadLetterAdminService } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const run = randomUUID().slice(0, 8);
const GROUP = "test.cli";
let db: FixtureClient;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createFixtureDatabase(inject("databaseAdminUrl"), `tawsil_test_dead_letter_cli_${run}`);
  drop = database.drop;
  db = fixtureClient(database.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

async function parkRow(key: string, amount: number, offset: number, error: string, eventId: string = randomUUID()): Promise<string> {
  const [row] = await db.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO parked_event (consumer_group, event_id, topic, partition, "offset", key, type, payload, error, attempts, parked_at)
     VALUES ($1, $2::uuid, 'test.topic', 0, $3, $4, 'test.Amount', $5, $6, 3, '2031-03-01T12:00:00Z') RETURNING id::text AS id`,
    GROUP, eventId, offset, key, Buffer.from(String(amount)), error,
  );
  return row!.id;
}

describe("./tawsil dead-letters", () => {
  it("lists, shows, replays in order and discards a service's parked events", async () => {
    let failOn = 2;
    const handler = async (tx: SqlClient, event: ConsumedEvent) => {
      const amount = Number(Buffer.from(event.payload).toString());
      if (amount === failOn) throw new Error(`amount ${amount} still fails`);
      await tx.$executeRawUnsafe(`INSERT INTO ledger_entry (event_id, amount) VALUES ($1::uuid, $2)`, event.eventId, amount);
    };
    const admin = new DeadLetterAdmin({ groupId: GROUP, runInTransaction: transactionsOf(db), handler, clock: () => new Date("2031-03-02T00:00:00Z") });
    const { routes } = deadLetterAdminRoutes(admin);
    const client = createClient(DeadLetterAdminService, createRouterTransport(routes));
    const cli = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runDeadLetterCli(["dead-letters", ...args], { out: (l) => out.push(l), err: (l) => err.push(l), env: {} }, client);
      return { code, out, err };
    };

    const first = await parkRow("S1", 1, 10, "Error: cannot decode");
    const second = await parkRow("S1", 2, 11, "waiting behind an earlier parked event of the same key");
    const third = await parkRow("S1", 3, 12, "waiting behind an earlier parked event of the same key");
    const other = await parkRow("S2", 9, 13, "Error: no such city");

    const listed = await cli("tracking", "list");
    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(4);
    expect(listed.out[0]).toBe(`${first} PARKED test.topic[0]@10 key S1 test.Amount event ${listed.out[0]!.split(" event ")[1]!.split(" ")[0]} attempts 3 parked 2031-03-01T12:00:00.000Z: Error: cannot decode`);
    expect((await cli("tracking", "show", first)).out.join("\n")).toContain(`payload (base64): ${Buffer.from("1").toString("base64")}`);

    expect(await cli("tracking", "replay", second)).toMatchObject({ code: 1, err: [`tawsil: parked event ${second} waits behind parked event ${first} of the same key: replay that one`] });
    // The first applies, the second fails again: it stays parked with the third behind it.
    const partial = await cli("tracking", "replay", first);
    expect(partial.code).toBe(1);
    expect(partial.out).toHaveLength(1);
    expect(partial.out[0]).toContain(`${first} REPLAYED`);
    expect(partial.err).toEqual([`tawsil: parked event ${second} failed again and stays parked (with those behind it): Error: amount 2 still fails`]);
    failOn = 0;
    const rest = await cli("tracking", "replay", second);
    expect(rest.code).toBe(0);
    expect(rest.out.map((l) => l.split(" ")[0])).toEqual([second, third]);
    expect((await db.$queryRawUnsafe<{ amount: number }[]>(`SELECT amount FROM ledger_entry ORDER BY id`)).map((r) => r.amount)).toEqual([1, 2, 3]);

    // Replaying an event applied before (its processed-event claim exists: a crash between the
    // apply and the parking's commit, or a replay of a copy) resolves it without applying it again.
    const appliedBefore = randomUUID();
    await db.$executeRawUnsafe(`INSERT INTO processed_event (consumer_group, event_id) VALUES ($1, $2::uuid)`, GROUP, appliedBefore);
    const twice = await parkRow("S3", 7, 14, "Error: cannot decode", appliedBefore);
    expect((await cli("tracking", "replay", twice)).out[0]).toContain(`${twice} ALREADY_APPLIED`);
    expect((await db.$queryRawUnsafe<{ amount: number }[]>(`SELECT amount FROM ledger_entry ORDER BY id`)).map((r) => r.amount)).toEqual([1, 2, 3]);

    expect((await cli("tracking", "discard", other)).out[0]).toContain(`${other} DISCARDED`);
    expect(await cli("tracking", "list")).toMatchObject({ code: 0, out: ["no parked event in tracking"] });
    expect((await cli("tracking", "list", "--all")).out.map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual([`${first} REPLAYED`, `${second} REPLAYED`, `${third} REPLAYED`, `${other} DISCARDED`, `${twice} ALREADY_APPLIED`]);
    expect(await cli("tracking", "replay", first)).toMatchObject({ code: 1, err: [`tawsil: parked event ${first} was already REPLAYED`] });
    expect(await cli("tracking", "show", "12345")).toMatchObject({ code: 1, err: ["tawsil: no parked event 12345"] });
    expect((await cli("pricing", "list")).err[0]).toMatch(/^tawsil: usage: \.\/tawsil dead-letters <dispatch\|tracking\|webhook>/);
  });
});
