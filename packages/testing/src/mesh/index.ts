export { startMesh, type Mesh, type MeshOptions } from "./mesh";
export { launch, waitReady, type LaunchSpec, type RunningProcess } from "./process";
export { freeSidePorts, sidePortsFrom, type SidePorts } from "./side-ports";
export { type FleetPorts } from "./fleet";
