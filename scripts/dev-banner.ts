/** What `make dev` prints once the mesh is ready: where everything is, the API reference included. */
export interface BannerInput {
  readonly seconds: number;
  readonly gatewayBaseUrl: string;
  readonly gatewayMetricsUrl: string;
  readonly services: readonly { name: string; url: string; metricsUrl: string; adminUrl?: string | undefined }[];
  readonly postgresHost: string;
  readonly dbPrefix: string;
  readonly kafkaBrokers: readonly string[];
  /** Relative to the checkout. */
  readonly logDir: string;
  readonly credentialsFile: string;
  /** What the gateway's /readyz answered. */
  readonly ready: string;
}

export function readyBanner(input: BannerInput): string {
  return `
Tawsil is running (sandbox) — ready in ${input.seconds.toFixed(1)} s
  gateway      ${input.gatewayBaseUrl}      (/readyz, /healthz; /metrics on ${input.gatewayMetricsUrl})
  docs         ${input.gatewayBaseUrl}/docs   (the API reference; its OpenAPI document is ${input.gatewayBaseUrl}/v2/openapi.json)
${input.services.map((p) => `  ${p.name.padEnd(12)} ${p.url}   (Connect + gRPC, /readyz; /metrics on ${p.metricsUrl}${p.adminUrl ? `; admin RPCs on ${p.adminUrl}` : ""})`).join("\n")}
  PostgreSQL   ${input.postgresHost}   databases ${input.dbPrefix}<service> (this checkout's; make dev-reset starts them afresh)
  Kafka        ${input.kafkaBrokers.join(",")}
  logs         ${input.logDir}/<name>.log
  credentials  ${input.credentialsFile} (TAWSIL_BASE_URL, TAWSIL_CLIENT_ID, ...; README.md "Trying it" uses them)
  operators    ./tawsil help
  /readyz      ${input.ready}

Ctrl-C or \`make down\` stops everything.`;
}
