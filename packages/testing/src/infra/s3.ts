/**
 * A local S3-compatible server for development and tests: Adobe's S3Mock (infra/s3mock/pom.xml),
 * one jar from Maven Central run with the machine's Java 17, like the local Kafka broker. Every
 * caller gets a server of its own (a free port, a fresh temp data dir, the bucket created at
 * start), never another checkout's or test run's: buckets and keys would mix otherwise.
 *
 * Module:  startS3({ port, bucket }) -> handle with endpoint and stop().
 * CLI:     tsx packages/testing/src/infra/s3.ts fetch
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run } from './kafka/jars';
import { javaBin } from './kafka/server-properties';
import { HOST, REPO_ROOT, sleep, type Log } from './kafka/settings';

/** Bump together with infra/s3mock/pom.xml: the cache file is named after it. */
export const S3MOCK_VERSION = '4.11.0';
const POM = path.join(REPO_ROOT, 'infra', 's3mock', 'pom.xml');
/** A JVM start takes 13 s on an idle machine of 2 cores and over 60 s on a saturated one. */
const READY_TIMEOUT_MS = 180_000;
/** Small heap, C1 only, serial GC: it serves a handful of objects, and starts faster this way. */
const JVM_FLAGS = ['-Xmx256m', '-Xss512k', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Djava.awt.headless=true'];
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const stderrLog: Log = (line) => process.stderr.write(`[s3] ${line}\n`);

export interface S3Handle {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly bucket: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

function cachedJar(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'tawsil', `s3mock-${S3MOCK_VERSION}`, 's3mock-exec.jar');
}

/** The server's jar, resolved by Maven on first use into a cache outside the repo (renamed in whole). */
export async function fetchS3Jar(log: Log = stderrLog): Promise<string> {
  const jar = cachedJar();
  if (existsSync(jar)) return jar;
  await mkdir(path.dirname(jar), { recursive: true });
  const tmp = await mkdtemp(path.join(path.dirname(jar), '.tmp-'));
  log(`resolving S3Mock ${S3MOCK_VERSION} with Maven (~60 MB, once)`);
  try {
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy', `-DoutputDirectory=${tmp}`], { cwd: REPO_ROOT, what: 'Maven S3Mock download' });
    await rename(path.join(tmp, 's3mock-exec.jar'), jar);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return jar;
}

/**
 * Starts S3Mock on 127.0.0.1:port with `bucket` created, its objects in a fresh temp dir that is
 * removed at stop (and at this process's exit; setpriv kills the JVM if this process dies).
 */
export async function startS3(opts: { port: number; httpsPort: number; bucket: string; log?: Log; keepIn?: string }): Promise<S3Handle> {
  const log = opts.log ?? stderrLog;
  const jar = await fetchS3Jar(log);
  // `make dev` keeps its objects beside its databases (keepIn), so a restart finds both; tests start empty.
  const dataDir = opts.keepIn ?? (await mkdtemp(path.join(os.tmpdir(), 'tawsil-s3-')));
  await mkdir(dataDir, { recursive: true });
  const removeData = opts.keepIn === undefined;
  const args = [
    ...JVM_FLAGS,
    '-jar',
    jar,
    `--com.adobe.testing.s3mock.httpPort=${opts.port}`,
    // Its HTTPS connector cannot be switched off; a free port of ours keeps it out of the way.
    `--server.port=${opts.httpsPort}`,
    `--server.address=${HOST}`,
    `--com.adobe.testing.s3mock.store.root=${dataDir}/store`,
    `--com.adobe.testing.s3mock.store.initialBuckets=${opts.bucket}`,
    `--com.adobe.testing.s3mock.store.retainFilesOnExit=${!removeData}`,
    '--logging.level.root=WARN',
  ];
  const consoleLog = path.join(dataDir, 'console.log');
  const fd = openSync(consoleLog, 'a');
  const child = SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', javaBin(), ...args], { stdio: ['ignore', fd, fd] })
    : spawn(javaBin(), args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const onExit = () => {
    if (running()) child.kill('SIGKILL');
    if (removeData) rmSync(dataDir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  const stop = async () => {
    if (running()) child.kill('SIGTERM');
    const timer = setTimeout(() => running() && child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    process.off('exit', onExit);
    if (removeData) await rm(dataDir, { recursive: true, force: true });
  };
  const endpoint = `http://${HOST}:${opts.port}`;
  const started = Date.now();
  try {
    await waitForBucket(endpoint, opts.bucket, running);
  } catch (err) {
    const tail = (await readFile(consoleLog, 'utf8').catch(() => '')).split('\n').slice(-30).join('\n');
    await stop();
    throw new Error(`S3Mock did not become ready: ${(err as Error).message}\n${tail}`);
  }
  log(`S3Mock ${S3MOCK_VERSION} ready on ${endpoint} (bucket ${opts.bucket}, pid ${child.pid}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { endpoint, bucket: opts.bucket, pid: child.pid, stop };
}

/** Ready means the bucket answers (HEAD 200): the server is up and created it. */
async function waitForBucket(endpoint: string, bucket: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('the JVM exited');
    const status = await fetch(`${endpoint}/${bucket}`, { method: 'HEAD', signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(250);
  }
  throw new Error(`no answer in ${READY_TIMEOUT_MS / 1000} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(REPO_ROOT, 'packages', 'testing', 'src', 'infra', 's3.ts') && process.argv[2] === 'fetch') {
  fetchS3Jar().then(
    (jar) => console.log(`[s3] ${jar}`),
    (err: unknown) => {
      console.error(`[s3] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}

/** A bucket of its own on the local server (S3Mock checks no signature, so a plain PUT makes it). */
export async function createBucket(endpoint: string, bucket: string): Promise<void> {
  const response = await fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
  if (response.status !== 200 && response.status !== 409) throw new Error(`creating bucket ${bucket} answered ${response.status}`);
}

/** The shipment service's storage settings for a bucket of the local server (its credentials are not checked). */
export function localStorageEnv(endpoint: string, bucket: string): Record<string, string> {
  return { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: 'tawsil-local', S3_SECRET_ACCESS_KEY: 'tawsil-local-secret' };
}
