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
 * CLI:     tsx packages/testing/src/infra/kafka.ts fetch | start | check
 *          (ports from KAFKA_PORT / KAFKA_CONTROLLER_PORT, defaults 9092 / 9093)
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { logTail } from './kafka/broker-files';
import { ensureKafka } from './kafka/broker-process';
import { fetchKafkaJars } from './kafka/jars';
import { describeBroker } from './kafka/probe';
import { DEFAULT_CONTROLLER_PORT, DEFAULT_PORT, HOST, type Log } from './kafka/settings';

export { ensureKafka, type KafkaHandle } from './kafka/broker-process';
export { fetchKafkaJars } from './kafka/jars';
export { describeBroker, portAccepts } from './kafka/probe';
export type { BrokerSecurity, ScramUser } from './kafka/security';
export { KAFKA_VERSION } from './kafka/settings';
export { ensureTopics } from './kafka/topics';

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
      console.error('usage: tsx packages/testing/src/infra/kafka.ts <fetch|start|check>\n' +
        '  fetch  resolve and cache the broker jars (first run downloads ~65 MB)\n' +
        '  start  run a local broker in the foreground until Ctrl-C (reuses one already running)\n' +
        '  check  exit 0 if a broker answers on 127.0.0.1:$KAFKA_PORT (default 9092)');
      return 2;
  }
}

/** True when this file is the program being run (tsx packages/testing/src/infra/kafka.ts ...), not imported. */
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
