import { describe, expect, it } from "vitest";
import { reserve } from "./free-port";

/** Outside the picker's range, so a real run on this machine never holds these. */
const somePort = () => 60_000 + Math.floor(Math.random() * 5_000);

describe("port reservations shared by every picker on the machine", () => {
  it("refuses a port another picker reserved within the last two minutes, and takes it back once stale", () => {
    const port = somePort();
    const now = Date.now();
    expect(reserve(port, now)).toBe(true);
    expect(reserve(port, now + 1_000)).toBe(false);
    expect(reserve(port, now + 119_000)).toBe(false);
    expect(reserve(port, now + 121_000)).toBe(true);
    expect(reserve(port, now + 122_000)).toBe(false);
  });
});
