/** Probing a broker: is the port taken, does a Kafka broker answer there. */
import net from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { PLAINTEXT, type ClientAccess } from './security';
import { HOST } from './settings';

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

interface QuietOptions { connectionTimeout?: number; requestTimeout?: number; retries?: number; access?: ClientAccess }

/** A quiet kafkajs client: no log output, and no retries unless asked (callers loop themselves). */
export function quietKafka(brokers: string[], opts: QuietOptions = {}): Kafka {
  return new Kafka({
    clientId: 'tawsil-infra',
    brokers,
    ...(opts.access ?? PLAINTEXT),
    logLevel: logLevel.NOTHING,
    connectionTimeout: opts.connectionTimeout ?? 1_000,
    requestTimeout: opts.requestTimeout ?? 5_000,
    retry: { retries: opts.retries ?? 0 },
  });
}

export function quietAdmin(brokers: string[], opts: QuietOptions = {}): Admin {
  return quietKafka(brokers, opts).admin();
}

/** Returns the cluster id if a Kafka broker on 127.0.0.1:port answers describeCluster, else undefined. */
export async function describeBroker(port: number, access: ClientAccess = PLAINTEXT): Promise<{ clusterId: string; brokers: number } | undefined> {
  if (!(await portAccepts(port))) return undefined;
  const admin = quietAdmin([`${HOST}:${port}`], { access });
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
