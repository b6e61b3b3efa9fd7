import { randomInt } from "node:crypto";

/** "TWS-" and 10 random digits; unique in the database, a collision is retried by the caller. */
export function newShipmentNumber(random: (max: number) => number = randomInt): string {
  let digits = "";
  for (let i = 0; i < 10; i++) digits += String(random(10));
  return `TWS-${digits}`;
}
