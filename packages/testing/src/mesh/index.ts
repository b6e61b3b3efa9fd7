export { replicaHost, startMesh, type Mesh, type MeshOptions } from "./mesh";
export { launch, waitReady, type LaunchSpec, type RunningProcess } from "./process";
export { peerName } from "./mesh-names";
export { freeSidePorts, sidePortsFrom, type SidePorts } from "./side-ports";
export { type FleetPorts } from "./fleet";
