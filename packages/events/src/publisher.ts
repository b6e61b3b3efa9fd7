/** One outbox row on its way to the broker. */
export interface PublishedRecord {
  readonly eventId: string;
  readonly topic: string;
  readonly key: string;
  readonly type: string;
  readonly payload: Uint8Array;
  /** Stored trace context (`traceparent`, `tracestate`) to carry as record headers. */
  readonly headers: Record<string, string>;
}

/** The port the relay publishes through; resolves only once the broker has acknowledged every record. */
export interface EventPublisher {
  publish(records: readonly PublishedRecord[]): Promise<void>;
}
