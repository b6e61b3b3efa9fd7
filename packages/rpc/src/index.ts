export { startRpcServer, type RpcServer, type RpcServerOptions } from "./server";
export { Readiness, type ReadinessCheck, type ReadinessReport } from "./readiness";
export { createMetrics, type Metrics } from "./metrics";
export { createPeerClient, type PeerClientOptions } from "./client";
export { currentRequestId } from "./request-context";
export { drainOnSignals, type Closer } from "./shutdown";
export { runService, startInProcess, type InProcessService, type ServiceSpec } from "./service";
export { toEdgeError } from "./error-edge";
export { toConnectError, withDomainErrors, type DomainErrorOptions } from "./domain-errors";
