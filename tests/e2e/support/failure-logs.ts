/**
 * Setup of every test file that runs processes: a failed test prints the log lines of the process
 * that answered its failing request (packages/testing/src/process-logs.ts), so a red run explains
 * itself without a rerun.
 */
import { beforeEach } from "vitest";
import { failureReport, forgetErrorAnswers } from "@tawsil/testing";

beforeEach((context) => {
  forgetErrorAnswers();
  context.onTestFailed(() => {
    const report = failureReport();
    if (report) console.error(`[process logs of the failing request]\n${report}`);
  });
});
