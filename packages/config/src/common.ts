import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65535);

/** Settings every process shares; each service extends this with its own. */
export const commonEnv = z.object({
  /** Node's mode; production in every pod. */
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Which Tawsil environment this is: token issuer, sandbox-only behaviour. */
  TAWSIL_ENVIRONMENT: z.enum(["sandbox", "production"]).default("sandbox"),
  /** Lowest level of the JSON log lines written. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Interface to listen on; 0.0.0.0 in a pod. */
  HOST: z.string().default("127.0.0.1"),
  /** Port of the service: RPCs, /healthz and /readyz (what peers and the kubelet reach). */
  PORT: port,
  /** Port of /metrics alone, on HOST (Prometheus scrapes it; nothing else is served there). Default PORT + 20, or a free port when PORT is 0. */
  METRICS_PORT: port.optional(),
  /** How long SIGTERM waits for in-flight requests before closing them. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * This process's Ed25519 private key (PKCS#8 DER, base64; a Secret), which signs the short-lived
   * service tokens its peer calls carry. Required when NODE_ENV is production.
   */
  SERVICE_IDENTITY_PRIVATE_KEY: z.string().transform(ed25519Key("private")).optional(),
  /**
   * The public keys (SPKI DER, base64) of every caller this process trusts, `name:key,name:key`. With
   * them the process refuses RPCs without a valid token from a caller its allow-list names. A name
   * may come more than once: each of its keys is trusted, which is how a caller's key is rotated
   * without a refused call (publish the new key beside the old, switch the caller, retire the old;
   * deploy/README.md). Required when NODE_ENV is production.
   */
  SERVICE_IDENTITY_PUBLIC_KEYS: z.string().transform(publicKeyList).optional(),
  /**
   * What a service token names as its kid: `key`, the signing key's id (RFC 7638 thumbprint), which
   * lets a callee trusting several keys of a caller pick one; `name`, the caller's name, as releases
   * before key ids expect (they refuse any other kid). Set `name` on every process for the one
   * rollout that upgrades from such a release, then remove it (deploy/README.md); this release
   * accepts both. Unset: `key`.
   */
  SERVICE_IDENTITY_TOKEN_KID: z.enum(["key", "name"]).optional(),
  /**
   * OTLP/HTTP base URL of the trace collector (spans are sent to `<url>/v1/traces`, JSON). Unset:
   * no export, and only a caller's sampled traceparent records spans.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** `service.name` of this process's exported spans. Default the process's name (gateway, shipment, ...). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});
export type CommonEnv = z.output<typeof commonEnv>;

/**
 * The operators' listener of a service with admin RPCs: only those RPCs and the health protocol,
 * apart from the port peers reach, so that reaching the service never means reaching its admin.
 */
export const adminEnv = z.object({
  /** Interface of the admin listener; loopback, reached with `kubectl port-forward`. */
  ADMIN_HOST: z.string().default("127.0.0.1"),
  /** Port of the admin RPCs. Default PORT + 10, or a free port when PORT is 0. */
  ADMIN_PORT: port.optional(),
});
export type AdminEnv = z.output<typeof adminEnv>;

/** Where a side listener (admin, metrics) goes when its port is not set: a fixed step above PORT, so each process's ports stay together; port 0 (tests) stays "any free port". */
export function sidePort(port: number, explicit: number | undefined, offset: number): number {
  return explicit ?? (port === 0 ? 0 : port + offset);
}
export const ADMIN_PORT_OFFSET = 10;
export const METRICS_PORT_OFFSET = 20;

/** A peer service's base URL (`<SVC>_SERVICE_URL`). */
export const peerUrl = z.url({ protocol: /^https?$/ });

/** A service's own PostgreSQL database. */
export const databaseEnv = z.object({
  /** The service's own database, `postgresql://user:password@host:5432/tawsil_<service>` (a Secret). */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  /** Connections per process; times replicas, it must stay under the server's max_connections. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * TLS of every connection to the database. `verify-full`: encrypted, the server's certificate
   * checked against DATABASE_SSL_ROOT_CERT and its name against the url's host, or no connection
   * (production). `disable`: plaintext. Unset: whatever the url's own `sslmode` says, none being
   * plaintext (make dev). Set, the url must not carry sslmode itself.
   */
  DATABASE_SSL_MODE: z.enum(["disable", "verify-full"]).optional(),
  /** Path of the PEM CA bundle that signed the database server's certificate (mounted from a ConfigMap); read with verify-full only. Unset with verify-full: Node's public CAs. */
  DATABASE_SSL_ROOT_CERT: z.string().min(1).optional(),
});

/** The TLS settings alone, for a process that reads its urls apart from a config schema (the migration runner). */
export const databaseTlsEnv = databaseEnv.pick({ DATABASE_SSL_MODE: true, DATABASE_SSL_ROOT_CERT: true });
export type DatabaseTls = z.output<typeof databaseTlsEnv>;

const filePath = z.string().trim().min(1);

/**
 * How a process reaches Kafka. Unset TLS and SASL settings mean a plaintext, open broker (`make dev`,
 * the tests); the deployed environments set both (deploy/components/kafka-auth). @tawsil/events'
 * kafkaConnection reads the files and checks that the settings come in complete sets.
 */
export const kafkaEnv = z.object({
  /** The Kafka bootstrap brokers, comma-separated `host:port`. */
  KAFKA_BROKERS: z
    .string()
    .min(1)
    .transform((value) => value.split(",").map((broker) => broker.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, "expected host:port")).min(1)),
  /** PEM file of the CA that signed the brokers' certificates (Strimzi's cluster CA, mounted). Set: TLS to the brokers, trusting this CA alone. */
  KAFKA_TLS_CA_FILE: filePath.optional(),
  /** PEM client certificate for mutual TLS, with KAFKA_TLS_KEY_FILE; needs KAFKA_TLS_CA_FILE. Unset: the client is known by SASL alone. */
  KAFKA_TLS_CERT_FILE: filePath.optional(),
  /** PEM private key of KAFKA_TLS_CERT_FILE (a Secret). */
  KAFKA_TLS_KEY_FILE: filePath.optional(),
  /** SASL mechanism, with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD; needs KAFKA_TLS_CA_FILE (SCRAM over plaintext would expose the session). */
  KAFKA_SASL_MECHANISM: z.enum(["scram-sha-512"]).optional(),
  /** The process's Kafka user (its KafkaUser's name), whose ACLs name what it may produce and consume. */
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  /** The Kafka user's password (a Secret, written by Strimzi's User Operator; never logged). */
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
});
export type KafkaEnv = z.output<typeof kafkaEnv>;

/** A base64 DER Ed25519 key, or undefined when it is not one. */
function parseKey(kind: "private" | "public", value: string): KeyObject | undefined {
  try {
    const der = Buffer.from(value.trim(), "base64");
    const key = kind === "private" ? createPrivateKey({ key: der, format: "der", type: "pkcs8" }) : createPublicKey({ key: der, format: "der", type: "spki" });
    return key.asymmetricKeyType === "ed25519" ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The zod transform of a key setting; a malformed value is reported without being echoed. */
function ed25519Key(kind: "private" | "public") {
  return (value: string, ctx: z.RefinementCtx): KeyObject => {
    const key = parseKey(kind, value);
    if (key) return key;
    ctx.addIssue({ code: "custom", message: `expected an Ed25519 ${kind} key, ${kind === "private" ? "PKCS#8" : "SPKI"} DER in base64` });
    return z.NEVER;
  };
}

const CALLER_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** Each caller's trusted keys, in the order given; a repeated name adds a key (the old one-key-per-name form still parses). */
function publicKeyList(value: string, ctx: z.RefinementCtx): ReadonlyMap<string, readonly KeyObject[]> {
  const keys = new Map<string, KeyObject[]>();
  for (const entry of value.split(",").map((e) => e.trim()).filter(Boolean)) {
    const at = entry.indexOf(":");
    const name = entry.slice(0, Math.max(at, 0));
    const key = CALLER_NAME.test(name) ? parseKey("public", entry.slice(at + 1)) : undefined;
    if (!key) {
      ctx.addIssue({ code: "custom", message: "expected name:key entries separated by commas, each key an Ed25519 SPKI DER in base64" });
      return z.NEVER;
    }
    keys.set(name, [...(keys.get(name) ?? []), key]);
  }
  return keys;
}

/**
 * A retention period (decisions.md section 18), in days or hours. Fractions are allowed (0.001 days
 * is 86 s) only so that `make soak` sees every retention job act within its run; deployments keep
 * whole days.
 */
export const retentionPeriod = (fallback: number, max: number) => z.coerce.number().positive().max(max).default(fallback);
const days = (fallback: number) => retentionPeriod(fallback, 3650);

/** The retention job of a service with growing tables (decisions.md section 18). */
export const retentionEnv = z.object({
  /** How often the retention job deletes expired rows and measures each table's oldest row; one replica deletes at a time. */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  /** Most rows one retention statement deletes (each is its own short transaction). */
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
});

/** A service with a transactional outbox. */
export const outboxRetentionEnv = z.object({
  /** Days a published outbox row is kept after it was sent. */
  OUTBOX_RETENTION_DAYS: days(7),
});

/** A service with idempotent Kafka consumers. */
export const consumerEnv = z.object({
  /** Days a consumer remembers an applied event (longer than the broker keeps it, so a redelivery is still recognised). */
  PROCESSED_EVENT_RETENTION_DAYS: days(14),
  /** Attempts to apply an event (a database outage aside) before it is parked as a dead letter. */
  CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
  /** Days a parked event is kept (replayed or not) before it is deleted. */
  PARKED_EVENT_RETENTION_DAYS: days(30),
});
