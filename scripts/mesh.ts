// scripts/soak still reaches the mesh launcher (packages/testing/src/mesh) and SERVICES here; once it
// imports them from their packages, this file goes.
export { freeSidePorts, type Mesh } from "../packages/testing/src/mesh";
export { SERVICES } from "../packages/topology/src";
