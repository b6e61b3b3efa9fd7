/** A broker's data dir: the log lines worth showing, and dirs left behind by brokers that died. */
import { readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DATA_DIR_PREFIX } from './settings';

/**
 * Key error lines and the last lines of the broker's log files, for error messages. Java stack
 * traces bury the cause ("Address already in use") above a plain tail, hence the key lines.
 */
export async function logTail(dataDir: string, lines = 25): Promise<string> {
  const parts: string[] = [];
  for (const name of ['server.log', 'console.log']) {
    let text: string;
    try {
      text = (await readFile(path.join(dataDir, name), 'utf8')).trimEnd();
    } catch {
      continue; // not written yet
    }
    if (!text) continue;
    const all = text.split('\n');
    const key = all.filter((l) => / (ERROR|FATAL) |Caused by:|Exception: /.test(l) && !/^\s+at /.test(l)).slice(-10);
    if (key.length) parts.push(`--- ${name} (errors) ---\n${key.join('\n')}`);
    parts.push(`--- ${name} (tail) ---\n${all.slice(-lines).join('\n')}`);
  }
  return parts.join('\n') || '(broker wrote no log)';
}

/**
 * Removes data dirs left by brokers whose owner died without cleaning up (SIGKILL: the broker
 * itself died with it through pdeathsig). Only dirs whose broker.pid names a process that is gone
 * are removed; a dir without one may belong to a broker being formatted right now, so it stays.
 */
export async function sweepStaleDataDirs(): Promise<void> {
  const tmp = os.tmpdir();
  let names: string[];
  try {
    names = (await readdir(tmp)).filter((n) => n.startsWith(DATA_DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(tmp, name);
    try {
      const pid = Number((await readFile(path.join(dir, 'broker.pid'), 'utf8')).trim());
      if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) await rm(dir, { recursive: true, force: true });
    } catch {
      // No pid file or unreadable: not provably stale.
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}
