import { describe, expect, it } from "vitest";
import { PAGE_FORMAT } from "./page-format";
import { PAGE_TEXTS } from "./page-texts";

describe("the customer page's counts", () => {
  it("says every interval in Arabic with the plural its CLDR category takes, in Arabic-Indic digits", () => {
    const arabic = [0, 1, 2, 3, 10, 11, 60, 100].map((n) => PAGE_TEXTS.ar.refresh(n, PAGE_FORMAT.ar));
    expect(arabic).toEqual([
      "تتحدّث هذه الصفحة تلقائيًا كل ٠ ثانية.",
      "تتحدّث هذه الصفحة تلقائيًا كل ثانية.",
      "تتحدّث هذه الصفحة تلقائيًا كل ثانيتين.",
      "تتحدّث هذه الصفحة تلقائيًا كل ٣ ثوانٍ.",
      "تتحدّث هذه الصفحة تلقائيًا كل ١٠ ثوانٍ.",
      "تتحدّث هذه الصفحة تلقائيًا كل ١١ ثانية.",
      "تتحدّث هذه الصفحة تلقائيًا كل ٦٠ ثانية.",
      "تتحدّث هذه الصفحة تلقائيًا كل ١٠٠ ثانية.",
    ]);
  });

  it("says one second and many seconds apart in English", () => {
    expect([1, 5].map((n) => PAGE_TEXTS.en.refresh(n, PAGE_FORMAT.en))).toEqual(["This page refreshes itself every second.", "This page refreshes itself every 5 seconds."]);
  });

  it("writes the driver's radius and the link's lifetime in the page's own digits", () => {
    expect([PAGE_TEXTS.ar.driverArea(500, PAGE_FORMAT.ar), PAGE_TEXTS.ar.errors.expired.body(PAGE_FORMAT.ar)].join(" ")).not.toMatch(/[0-9]/);
    expect(PAGE_TEXTS.ar.driverArea(500, PAGE_FORMAT.ar)).toBe("منطقة السائق (نحو ٥٠٠ م)");
  });
});
