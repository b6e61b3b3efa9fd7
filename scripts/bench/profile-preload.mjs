// `make bench` loads this into each process of its mesh (NODE_OPTIONS=--import) so it can take a
// CPU profile of any round without restarting anything: SIGUSR2 starts V8's sampling profiler,
// the next SIGUSR2 stops it and writes <BENCH_PROFILE_DIR>/<pid>-<n>.cpuprofile (written under a
// temporary name, then renamed, so the bench never reads half a file). Plain JavaScript: the
// processes run compiled bundles with plain node, without tsx.
import inspector from "node:inspector";
import { renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";

const dir = process.env.BENCH_PROFILE_DIR;
// Finer than V8's default 1 ms: a round of a few seconds then holds thousands of samples.
const SAMPLING_INTERVAL_US = 250;

if (dir) {
  // Connected on the first signal: an idle process keeps no inspector session open.
  let session;
  let running = false;
  let taken = 0;
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  process.on("SIGUSR2", () => {
    if (!session) {
      session = new inspector.Session();
      session.connect();
    }
    const step = running
      ? post("Profiler.stop").then(async ({ profile }) => {
          // Let go of the inspector between profiles: the idle figures must not pay for it.
          await post("Profiler.disable");
          session.disconnect();
          session = undefined;
          running = false;
          const file = path.join(dir, `${process.pid}-${++taken}.cpuprofile`);
          writeFileSync(`${file}.tmp`, JSON.stringify(profile));
          renameSync(`${file}.tmp`, file);
        })
      : post("Profiler.enable")
          .then(() => post("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US }))
          .then(() => post("Profiler.start"))
          .then(() => {
            running = true;
          });
    step.catch((err) => process.stderr.write(`bench profiler: ${err instanceof Error ? err.message : String(err)}\n`));
  });
}
