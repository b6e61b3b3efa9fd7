/**
 * Loaded (node --import) into every process of a mesh with replicas (./mesh.ts): the names in
 * the file MESH_HOSTS_FILE (`{"name": ["address", ...]}`, ./mesh-names.ts) resolve to the
 * addresses it lists then, the ready replicas', as a headless Service's name resolves to its ready
 * pods in a cluster; a name with none listed is not found, as there. So a process spreads its calls
 * over every ready replica of a peer through the same code as in a cluster (packages/rpc's
 * SpreadTransport, which resolves with node:dns/promises). Other names resolve as usual. Plain
 * JavaScript: the processes run compiled bundles with plain node, without tsx.
 */
import dns from "node:dns";
import { readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import process from "node:process";

const file = process.env.MESH_HOSTS_FILE;
const listed = (host) => {
  if (!file || !host.endsWith(".mesh.test")) return undefined;
  return JSON.parse(readFileSync(file, "utf8"))[host] ?? [];
};

const resolve = dns.promises.lookup;
dns.promises.lookup = async (host, options) => {
  const addresses = listed(host);
  if (!addresses) return resolve.call(dns.promises, host, options);
  if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND", hostname: host });
  const records = addresses.map((address) => ({ address, family: 4 }));
  return typeof options === "object" && options?.all ? records : records[0];
};
// The bundles import lookup from node:dns/promises by name: give those bindings the function above.
syncBuiltinESMExports();
