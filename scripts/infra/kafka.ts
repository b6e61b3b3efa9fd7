/**
 * Local Apache Kafka for development and tests, without Docker.
 *
 * The machines this project runs on have Java 17 and Maven with Maven Central, but no Docker and no
 * Kafka package. Apache publishes the broker as ordinary jars, so we resolve them with Maven
 * (infra/kafka/pom.xml), cache them outside the repo, and run one combined broker+controller in
 * KRaft mode with the machine's Java. See the shared design note kafka-local.md for the facts
 * behind each setting.
 *
 * Module:  ensureKafka() reuses a broker already answering on the port, or starts a fresh one;
 *          ensureTopics() creates missing topics idempotently.
 * CLI:     tsx scripts/infra/kafka.ts fetch | start | check
 *          (ports from KAFKA_PORT / KAFKA_CONTROLLER_PORT, defaults 9092 / 9093)
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, realpathSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import type { Admin } from 'kafkajs';

/** Bump together with infra/kafka/pom.xml: the cache folder is named after it. */
export const KAFKA_VERSION = '4.1.2';

const DEFAULT_PORT = 9092;
const DEFAULT_CONTROLLER_PORT = 9093;
/** Always the IPv4 loopback: Node may resolve `localhost` to ::1 while the broker binds IPv4. */
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;
/** Per-run data dirs live in os.tmpdir() under this prefix. */
const DATA_DIR_PREFIX = 'tawsil-kafka-';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const POM = path.join(REPO_ROOT, 'infra', 'kafka', 'pom.xml');
const LOG4J_CONFIG = path.join(REPO_ROOT, 'infra', 'kafka', 'log4j2.properties');

export interface KafkaHandle {
  /** `host:port` strings for kafkajs `brokers`. */
  brokers: string[];
  /** True when this call spawned the broker; false when an existing one was reused. */
  startedHere: boolean;
  /** Stops a broker started here (SIGTERM, then SIGKILL after 20 s) and deletes its data dir; no-op when reused. */
  stop(): Promise<void>;
  /** Pid of the broker JVM, only when startedHere. */
  pid?: number;
  /** Fresh data dir (server.properties, server.log, console.log, log dirs), only when startedHere. */
  dataDir?: string;
  /** Settles when the broker JVM exits (for whatever reason), only when startedHere. */
  exited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

type Log = (line: string) => void;

/** Default progress sink: stderr, so a cold first run (minutes of downloading) is never silent. */
const stderrLog: Log = (line) => process.stderr.write(`[kafka] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Jars: resolved once by Maven into a per-version cache outside the repo.
// ---------------------------------------------------------------------------------------------

/** `${XDG_CACHE_HOME:-$HOME/.cache}/tawsil/kafka-<version>`: outside the repo so `git clean` keeps it. */
function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'tawsil', `kafka-${KAFKA_VERSION}`);
}

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
function run(cmd: string, args: string[], opts: { cwd?: string; what: string; timeoutMs?: number }): Promise<string> {
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

// ---------------------------------------------------------------------------------------------
// Probing a broker.
// ---------------------------------------------------------------------------------------------

/** True if something accepts TCP connections on 127.0.0.1:port (cheap check before kafkajs). */
export function portAccepts(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A quiet kafkajs client: no log output, and no retries unless asked (callers loop themselves). */
function quietKafka(brokers: string[], opts: { connectionTimeout?: number; requestTimeout?: number; retries?: number } = {}): Kafka {
  return new Kafka({
    clientId: 'tawsil-infra',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: opts.connectionTimeout ?? 1_000,
    requestTimeout: opts.requestTimeout ?? 5_000,
    retry: { retries: opts.retries ?? 0 },
  });
}

function quietAdmin(brokers: string[], opts: { connectionTimeout?: number; requestTimeout?: number; retries?: number } = {}): Admin {
  return quietKafka(brokers, opts).admin();
}

/** Returns the cluster id if a Kafka broker on 127.0.0.1:port answers describeCluster, else undefined. */
export async function describeBroker(port: number): Promise<{ clusterId: string; brokers: number } | undefined> {
  if (!(await portAccepts(port))) return undefined;
  const admin = quietAdmin([`${HOST}:${port}`]);
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return { clusterId: cluster.clusterId, brokers: cluster.brokers.length };
  } catch {
    return undefined;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Starting a broker.
// ---------------------------------------------------------------------------------------------

/** One combined broker+controller, sized for a 2-core dev machine and fast tests. */
function serverProperties(dataDir: string, port: number, controllerPort: number): string {
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    // Static voters (formatted without --standalone): the simplest single-node quorum.
    'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    listeners: `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${port}`,
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': path.join(dataDir, 'kraft-logs'),
    // One node: every replication factor and min ISR must be 1, or consumer groups hang on
    // "group coordinator not available" waiting for replicas that can never exist.
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    // Fast tests: one partition for internal topics, no join delay, explicit topic creation
    // (under KRaft a consumer subscribing to a missing topic fails instead of waiting).
    'num.partitions': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
    // Small thread pools for a 2-core machine.
    'num.network.threads': 2,
    'num.io.threads': 2,
    'background.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'num.replica.fetchers': 1,
    'log.cleaner.threads': 1,
    // The default 128 MiB dedupe buffer comes out of the heap; 16 MiB is plenty here.
    'log.cleaner.dedupe.buffer.size': 16 * 1024 * 1024,
  };
  const lines = Object.entries(props).map(([k, v]) => `${k}=${String(v)}`);
  return `# Written by scripts/infra/kafka.ts for a throwaway local broker.\n${lines.join('\n')}\n`;
}

/** java from JAVA_HOME when set (as Kafka's own scripts do), else from PATH. */
function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/** System properties shared by the formatter and the broker: logging to <dataDir>/server.log. */
function logJvmArgs(dataDir: string): string[] {
  return [`-Dlog4j2.configurationFile=${LOG4J_CONFIG}`, `-Dkafka.logs.dir=${dataDir}`, '-Djava.awt.headless=true'];
}

/**
 * `setpriv --pdeathsig KILL` makes the kernel kill the JVM if this process dies without running
 * its 'exit' handlers (SIGKILL, crash, a test runner tearing down a worker). setpriv execs java,
 * so the pid stays the JVM's. util-linux ships it on Debian; without it we rely on 'exit' only.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/**
 * Key error lines and the last lines of the broker's log files, for error messages. Java stack
 * traces bury the cause ("Address already in use") above a plain tail, hence the key lines.
 */
async function logTail(dataDir: string, lines = 25): Promise<string> {
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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Removes data dirs left by brokers whose owner died without cleaning up (SIGKILL: the broker
 * itself died with it through pdeathsig). Only dirs whose broker.pid names a process that is gone
 * are removed; a dir without one may belong to a broker being formatted right now, so it stays.
 */
async function sweepStaleDataDirs(): Promise<void> {
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

/**
 * Returns a broker on 127.0.0.1:port: the one already answering there (reused, never stopped by
 * us), or a fresh single-node KRaft broker in a new temp data dir that dies with this process.
 * With `reuse: false` a broker already there is an error: `make dev` and the tests need one of
 * their own, as every mesh uses the same topics and consumer groups.
 */
export async function ensureKafka(opts: { port?: number; controllerPort?: number; reuse?: boolean; log?: Log } = {}): Promise<KafkaHandle> {
  const port = opts.port ?? DEFAULT_PORT;
  const controllerPort = opts.controllerPort ?? DEFAULT_CONTROLLER_PORT;
  const log = opts.log ?? stderrLog;
  const brokers = [`${HOST}:${port}`];

  const existing = await describeBroker(port);
  if (existing && opts.reuse === false) {
    throw new Error(`a Kafka broker (cluster ${existing.clusterId}) already runs on ${brokers[0]}, and this one must not share it; pick another port`);
  }
  if (existing) {
    log(`reusing the Kafka broker already on ${brokers[0]} (cluster ${existing.clusterId})`);
    return { brokers, startedHere: false, stop: async () => undefined };
  }
  if (await portAccepts(port)) {
    // Something listens but does not speak Kafka (or is still starting): starting ours would fail to bind.
    throw new Error(`${HOST}:${port} accepts connections but no Kafka broker answers there; free the port or pick another`);
  }

  const lib = await fetchKafkaJars(log);
  await sweepStaleDataDirs();
  const classpath = `${lib}${path.sep}*`;
  const started = Date.now();

  // A fresh data dir every time: a reused one formatted with another cluster id refuses to start.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), DATA_DIR_PREFIX));
  const propsFile = path.join(dataDir, 'server.properties');
  await writeFile(propsFile, serverProperties(dataDir, port, controllerPort));

  try {
    // The formatter is a short-lived JVM: C1 only and a small heap start it faster.
    const toolJvm = ['-Xmx256m', '-XX:TieredStopAtLevel=1', ...logJvmArgs(dataDir), '-cp', classpath, 'kafka.tools.StorageTool'];
    const uuidOut = await run(javaBin(), [...toolJvm, 'random-uuid'], { what: 'kafka StorageTool random-uuid', timeoutMs: 60_000 });
    const clusterId = uuidOut.trim().split('\n').pop()?.trim();
    if (!clusterId) throw new Error(`kafka StorageTool random-uuid printed no id: ${uuidOut}`);
    await run(javaBin(), [...toolJvm, 'format', '-t', clusterId, '-c', propsFile], { what: 'kafka StorageTool format', timeoutMs: 60_000 });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }

  const brokerArgs = [
    '-Xms256m',
    '-Xmx512m',
    '-XX:+ExitOnOutOfMemoryError',
    ...logJvmArgs(dataDir),
    '-cp',
    classpath,
    'kafka.Kafka',
    propsFile,
  ];
  // JVM stdout/stderr go to a file (not a pipe): nothing to drain, and a crash leaves its message there.
  const consoleFd = openSync(path.join(dataDir, 'console.log'), 'a');
  let child: ChildProcess;
  try {
    child = SETPRIV
      ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', javaBin(), ...brokerArgs], { stdio: ['ignore', consoleFd, consoleFd] })
      : spawn(javaBin(), brokerArgs, { stdio: ['ignore', consoleFd, consoleFd] });
  } finally {
    closeSync(consoleFd); // the child keeps its own copy
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null })); // e.g. java not found
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const isRunning = () => child.exitCode === null && child.signalCode === null && !spawnError;

  // Last resort when our process exits without calling stop(): the broker must not outlive us.
  // Only synchronous work is possible in an 'exit' handler.
  const onExit = () => {
    if (isRunning()) child.kill('SIGKILL');
    try {
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Best effort: it is under the OS temp dir anyway.
    }
  };
  process.on('exit', onExit);
  // Lets a later run sweep this dir if we die without cleaning up (see sweepStaleDataDirs).
  if (child.pid !== undefined) await writeFile(path.join(dataDir, 'broker.pid'), `${child.pid}\n`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (isRunning()) {
        child.kill('SIGTERM'); // controlled shutdown
        // A cleared timer, not a bare sleep: a pending 20 s timer would keep the caller's process
        // (a test runner, say) alive long after the broker is gone.
        let timer: NodeJS.Timeout | undefined;
        const graceful = await Promise.race([
          exited.then(() => true),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
        ]);
        clearTimeout(timer);
        if (!graceful && isRunning()) {
          log(`broker pid ${child.pid} ignored SIGTERM for ${STOP_GRACE_MS / 1000} s; killing it`);
          child.kill('SIGKILL');
        }
        await exited;
      }
      process.off('exit', onExit);
      await rm(dataDir, { recursive: true, force: true, maxRetries: 3 });
    })());

  log(`starting Kafka ${KAFKA_VERSION} on ${brokers[0]} (controller ${HOST}:${controllerPort}, pid ${child.pid ?? '?'}, data ${dataDir})`);
  try {
    await waitReady(port, isRunning);
    await warmCoordinators(brokers, isRunning);
  } catch (err) {
    const tail = await logTail(dataDir);
    await stop();
    const reason = spawnError ? `could not run ${javaBin()}: ${spawnError.message}` : (err as Error).message;
    throw new Error(`Kafka broker did not become ready: ${reason}\n${tail}`);
  }
  log(`Kafka ready on ${brokers[0]} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  return { brokers, startedHere: true, stop, pid: child.pid, dataDir, exited };
}

/** Polls until the port accepts and describeCluster succeeds; fails fast if the JVM exits. */
async function waitReady(port: number, isRunning: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isRunning()) throw new Error('the broker JVM exited during startup');
    if (await describeBroker(port)) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${READY_TIMEOUT_MS / 1000} s`);
}

/**
 * A fresh broker answers the first FindCoordinator/JoinGroup with "coordinator not available /
 * loading" (__consumer_offsets is created on first use, then loaded) and the first InitProducerId
 * with "coordinator is loading" (the producer-id block is fetched from the controller lazily).
 * kafkajs recovers, but only after logging errors, and its first consumer crashes and restarts
 * a few seconds later. Touching both once here hands callers a broker where groups and idempotent
 * producers work at once.
 */
async function warmCoordinators(brokers: string[], isRunning: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const kafka = quietKafka(brokers);
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    for (;;) {
      if (!isRunning()) throw new Error('the broker JVM exited during startup');
      try {
        await fn();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${what} not ready after ${READY_TIMEOUT_MS / 1000} s: ${(err as Error).message}`);
      }
      await sleep(200);
    }
  };
  const admin = kafka.admin();
  try {
    await admin.connect();
    await attempt('group coordinator', () => admin.describeGroups(['tawsil-infra-warmup']));
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  await attempt('producer id manager', async () => {
    // An idempotent producer's connect() sends InitProducerId (kafkajs demands retries for it).
    const producer = quietKafka(brokers, { retries: 5 }).producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await producer.connect();
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Topics.
// ---------------------------------------------------------------------------------------------

/**
 * Creates the topics that do not exist yet and waits until every requested partition has a
 * leader. Idempotent, and safe against a concurrent creator (TOPIC_ALREADY_EXISTS is fine).
 * The replication factor is left to the broker default (1 on our local broker).
 */
export async function ensureTopics(brokers: string[], topics: { topic: string; numPartitions?: number }[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = quietAdmin(brokers, { connectionTimeout: 3_000, requestTimeout: 30_000, retries: 5 });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.topic));
      if (missing.length === 0) break;
      try {
        await admin.createTopics({
          topics: missing.map((t) => ({ topic: t.topic, numPartitions: t.numPartitions ?? 1 })),
          waitForLeaders: true,
        });
        break;
      } catch (err) {
        // kafkajs rejects a batch where only SOME topics already exist (a race with another
        // creator); list again and create the rest.
        if (attempt >= 3) throw err;
      }
    }
    await waitForLeaders(admin, topics.map((t) => t.topic));
  } finally {
    await admin.disconnect();
  }
}

/** Topics that already existed skipped createTopics' own wait: check that their leaders are elected. */
async function waitForLeaders(admin: Admin, names: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: names });
      if (topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for leaders of ${names.join(', ')}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// CLI.
// ---------------------------------------------------------------------------------------------

function envPort(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${name}=${raw} is not a port`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const cmd = argv[0];
  const port = envPort('KAFKA_PORT', DEFAULT_PORT);
  const controllerPort = envPort('KAFKA_CONTROLLER_PORT', DEFAULT_CONTROLLER_PORT);
  const log: Log = (line) => console.log(`[kafka] ${line}`);

  switch (cmd) {
    case 'fetch': {
      const lib = await fetchKafkaJars(log);
      log(`classpath: ${lib}${path.sep}*`);
      return 0;
    }
    case 'check': {
      const found = await describeBroker(port);
      if (found) {
        log(`Kafka answers on ${HOST}:${port} (cluster ${found.clusterId}, ${found.brokers} broker(s))`);
        return 0;
      }
      log(`no Kafka broker answers on ${HOST}:${port}`);
      return 1;
    }
    case 'start': {
      const handle = await ensureKafka({ port, controllerPort, log });
      if (!handle.startedHere) {
        log('nothing to start; leaving the existing broker alone');
        return 0;
      }
      log(`brokers: ${handle.brokers.join(',')}  (Ctrl-C to stop)`);
      return await new Promise<number>((resolve) => {
        let stopping = false;
        const onSignal = (signal: NodeJS.Signals) => {
          if (stopping) return; // a second Ctrl-C while stopping changes nothing; stop() escalates itself
          stopping = true;
          log(`${signal}: stopping the broker`);
          handle.stop().then(
            () => resolve(0),
            (err: unknown) => {
              console.error(err);
              resolve(1);
            },
          );
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        // A broker dying on its own ends the command with an error and its log tail.
        void handle.exited?.then(async ({ code, signal }) => {
          if (stopping) return;
          stopping = true;
          log(`broker exited unexpectedly (code ${code}, signal ${signal})`);
          if (handle.dataDir) console.error(await logTail(handle.dataDir));
          await handle.stop();
          resolve(1);
        });
      });
    }
    default:
      console.error('usage: tsx scripts/infra/kafka.ts <fetch|start|check>\n' +
        '  fetch  resolve and cache the broker jars (first run downloads ~65 MB)\n' +
        '  start  run a local broker in the foreground until Ctrl-C (reuses one already running)\n' +
        '  check  exit 0 if a broker answers on 127.0.0.1:$KAFKA_PORT (default 9092)');
      return 2;
  }
}

/** True when this file is the program being run (tsx scripts/infra/kafka.ts ...), not imported. */
function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === pathToFileURL(realpathSync(fileURLToPath(import.meta.url))).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[kafka] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
