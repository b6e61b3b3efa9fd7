import type { PrismaClient } from "../prisma/generated/client";

/** Whether an event of the topic is committed but not yet on the broker (the partial index on unsent rows finds it). */
export async function unsentOnTopic(db: PrismaClient, topic: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ pending: boolean }[]>`SELECT EXISTS (SELECT 1 FROM outbox_event WHERE sent_at IS NULL AND topic = ${topic}) AS pending`;
  return rows[0]?.pending ?? false;
}
