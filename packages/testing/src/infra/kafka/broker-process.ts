/** Starting and stopping one local broker JVM (KRaft, broker and controller in one process). */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { logTail, sweepStaleDataDirs } from './broker-files';
import { newClusterId } from './cluster-id';
import { fetchKafkaJars, run } from './jars';
import { describeBroker, portAccepts } from './probe';
import { waitReady, warmCoordinators } from './readiness';
import { probeAccess, scramFormatArgs, securedListenerProperties, type BrokerSecurity } from './security';
import { BROKER_JVM_FLAGS, javaBin, logJvmArgs, serverProperties } from './server-properties';
import { DATA_DIR_PREFIX, DEFAULT_CONTROLLER_PORT, DEFAULT_PORT, HOST, KAFKA_VERSION, STOP_GRACE_MS, stderrLog, type Log } from './settings';

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

/**
 * `setpriv --pdeathsig KILL` makes the kernel kill the JVM if this process dies without running
 * its 'exit' handlers (SIGKILL, crash, a test runner tearing down a worker). setpriv execs java,
 * so the pid stays the JVM's. util-linux ships it on Debian; without it we rely on 'exit' only.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/**
 * Returns a broker on 127.0.0.1:port: the one already answering there (reused, never stopped by
 * us), or a fresh single-node KRaft broker in a new temp data dir that dies with this process.
 */
export async function ensureKafka(opts: { port?: number; controllerPort?: number; reuse?: boolean; log?: Log; security?: BrokerSecurity } = {}): Promise<KafkaHandle> {
  const port = opts.port ?? DEFAULT_PORT;
  const controllerPort = opts.controllerPort ?? DEFAULT_CONTROLLER_PORT;
  const log = opts.log ?? stderrLog;
  const brokers = [`${HOST}:${port}`];

  const access = probeAccess(opts.security);
  const existing = await describeBroker(port, access);
  // With `reuse: false` a broker already there is an error: `make dev` and the tests need one of
  // their own, as every mesh uses the same topics and consumer groups.
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
  const secured = opts.security ? await securedListenerProperties(dataDir, opts.security) : undefined;
  await writeFile(propsFile, serverProperties(dataDir, port, controllerPort, secured));

  try {
    // The formatter is a short-lived JVM: C1 only and a small heap start it faster.
    const toolJvm = ['-Xmx256m', '-XX:TieredStopAtLevel=1', ...logJvmArgs(dataDir), '-cp', classpath, 'kafka.tools.StorageTool'];
    await run(javaBin(), [...toolJvm, 'format', '-t', newClusterId(), '-c', propsFile, ...scramFormatArgs(opts.security)], { what: 'kafka StorageTool format', timeoutMs: 60_000 });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }

  const brokerArgs = [
    ...BROKER_JVM_FLAGS,
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
    await waitReady(port, isRunning, access);
    await warmCoordinators(brokers, isRunning, access);
  } catch (err) {
    const tail = await logTail(dataDir);
    await stop();
    const reason = spawnError ? `could not run ${javaBin()}: ${spawnError.message}` : (err as Error).message;
    throw new Error(`Kafka broker did not become ready: ${reason}\n${tail}`);
  }
  log(`Kafka ready on ${brokers[0]} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  return { brokers, startedHere: true, stop, pid: child.pid, dataDir, exited };
}
