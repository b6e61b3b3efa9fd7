import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One span as an OTLP/JSON export carries it (ids in hex), with its process's `service.name`. */
export interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root (the exporter sends none, or ""). */
  readonly parentSpanId: string;
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}

/**
 * A stand-in for the trace collector, which lives outside the system: an OTLP/HTTP endpoint that
 * keeps every span it is sent (JSON, what @opentelemetry/exporter-trace-otlp-http sends).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Requests received, spans or not. */
  requests = 0;
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      this.requests++;
      const raw = Buffer.concat(chunks);
      const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
      if (req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end();
        return;
      }
      this.#keep(JSON.parse(body.toString("utf8")) as OtlpJson);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });

  /** Listens on a free loopback port; the endpoint to set as OTEL_EXPORTER_OTLP_ENDPOINT. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  #keep(payload: OtlpJson): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({ service, name: span.name, kind: span.kind, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? "" });
        }
      }
    }
  }
}
