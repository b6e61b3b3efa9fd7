/** The broker's jars: resolved once by Maven into a per-version cache outside the repo. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot, KAFKA_VERSION, POM, REPO_ROOT, stderrLog, type Log } from './settings';

/** A lib dir counts as complete only if it holds the broker jar (it is renamed in only when complete). */
async function isCompleteLib(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).includes(`kafka_2.13-${KAFKA_VERSION}.jar`);
  } catch {
    return false;
  }
}

/**
 * Returns the folder holding the broker's runtime classpath, resolving it with Maven on first use.
 *
 * Maven copies into a fresh temp folder beside the cache, which is renamed into place only once
 * complete: rename is atomic on one filesystem, so an interrupted download never leaves a half
 * cache, and when two callers race the loser simply discards its copy and uses the winner's.
 */
export async function fetchKafkaJars(log: Log = stderrLog): Promise<string> {
  const root = cacheRoot();
  const lib = path.join(root, 'lib');
  if (await isCompleteLib(lib)) return lib;

  await mkdir(root, { recursive: true });
  if (existsSync(lib) && !(await isCompleteLib(lib))) {
    // Not produced by us (we only rename complete folders, and re-checked in case a concurrent
    // caller just did): do not trust it, resolve again.
    log(`cache ${lib} is incomplete; resolving again`);
    await rm(lib, { recursive: true, force: true });
  }

  await sweepOldTempLibs(root);
  const tmp = await mkdtemp(path.join(root, '.lib-tmp-'));
  const started = Date.now();
  log(`resolving Kafka ${KAFKA_VERSION} jars with Maven into ${lib}`);
  log('first run downloads ~65 MB from Maven Central (~45 MB of jars plus Maven plugins; seconds to minutes); later runs reuse the cache');
  // mvn -q prints nothing while downloading, so show that we are alive.
  const ticker = setInterval(() => log(`  still resolving... ${Math.round((Date.now() - started) / 1000)} s`), 15_000);
  try {
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${tmp}`], {
      cwd: REPO_ROOT,
      what: 'Maven dependency resolution',
    });
    if (!(await isCompleteLib(tmp))) throw new Error(`Maven finished but ${tmp} has no kafka_2.13-${KAFKA_VERSION}.jar`);
    try {
      await rename(tmp, lib);
    } catch (err) {
      // Another caller renamed its complete copy first: use it and drop ours.
      if (!(await isCompleteLib(lib))) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    clearInterval(ticker);
  }
  const jars = (await readdir(lib)).filter((f) => f.endsWith('.jar')).length;
  log(`Kafka jars ready: ${jars} jars in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return lib;
}

/**
 * Drops temp folders of downloads that were killed mid-way (their process could not clean up).
 * Only old ones: a recent one may be a concurrent caller's download in progress.
 */
async function sweepOldTempLibs(root: string): Promise<void> {
  const cutoff = Date.now() - 60 * 60 * 1000;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith('.lib-tmp-')) continue;
    const dir = path.join(root, name);
    const info = await stat(dir).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a command to completion, keeping the tail of its output for the error message. */
export function run(cmd: string, args: string[], opts: { cwd?: string; what: string; timeoutMs?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, timeout: opts.timeoutMs ?? 0, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const out = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n');
        reject(new Error(`${opts.what} failed (${cmd} ${args.join(' ')}): ${err.message}\n${out}`));
      },
    );
  });
}
