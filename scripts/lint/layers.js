// The layer rules of architecture.md, checked on every service rather than remembered: domain/ is
// pure, app/ talks to ports and never to an adapter, rpc/ and consumers/ map messages and delegate
// to app/ (the adapters a use case needs are wired in server.ts), infra/ adapts and is called,
// never calling an edge back, and messages/ (a message both edges share) knows only the domain. Each folder gets its
// own no-restricted-imports (type-only imports count too: a port, not a generated type, is what a
// use case names). Tests are left out: they wire adapters to use cases the way server.ts does.

/** Transport, database, messaging and generated code: what a pure domain must not know. */
const OUTSIDE_WORLD = [
  { regex: "^@connectrpc/", message: "no transport in domain/ (Connect belongs in rpc/ and infra/)" },
  { regex: "^@bufbuild/", message: "no protobuf in domain/ (messages are mapped in rpc/ and infra/)" },
  { regex: "^@tawsil/(proto|rpc|db|events)(/|$)", message: "no generated code, transport, database or messaging package in domain/" },
  { regex: "^@prisma/", message: "no database in domain/ (Prisma belongs in infra/)" },
  { regex: "(^|/)prisma/generated(/|$)", message: "no generated Prisma client in domain/" },
  { regex: "^(pg|kafkajs|fastify|undici)$|^@fastify/", message: "no database driver, broker client or HTTP server in domain/" },
  { regex: "^node:(http|http2|net|dns)$", message: "no network in domain/" },
];

/** A service's own adapters and edges, seen from inside. */
const adaptersOf = (layer) => [
  { regex: "(^|/)infra(/|$)", message: `${layer}/ imports no infra/ module: declare a port in app/ports.ts and wire the adapter in server.ts` },
  { regex: "^@prisma/|(^|/)prisma/generated(/|$)", message: `no Prisma in ${layer}/ (types included): the adapters in infra/ map rows` },
];

const SOURCES = (layer) => [`services/*/src/${layer}/**/*.ts`];
const TESTS = ["**/*.test.ts"];

export const layerRules = [
  {
    files: SOURCES("domain"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": ["error", { patterns: [...OUTSIDE_WORLD, { regex: "(^|/)(app|infra|rpc|consumers)(/|$)", message: "domain/ depends on nothing of its service but domain/" }] }],
    },
  },
  {
    files: SOURCES("app"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": ["error", { patterns: [...adaptersOf("app"), { regex: "(^|/)(rpc|consumers)(/|$)", message: "app/ is called by rpc/ and consumers/, never the reverse" }, { regex: "^(pg|kafkajs)$|^@tawsil/db$", message: "no database or broker client in app/: use a port" }] }],
    },
  },
  {
    files: SOURCES("rpc"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": ["error", { patterns: [...adaptersOf("rpc"), { regex: "^\\.\\.?/(.*/)?consumers(/|$)", message: "rpc/ and consumers/ are two edges: neither imports the other" }, { regex: "^(pg|kafkajs)$|^@tawsil/(db|events)$", message: "rpc/ maps and delegates: no database or broker in it" }] }],
    },
  },
  {
    files: SOURCES("consumers"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...adaptersOf("consumers"),
            { regex: "^\\.\\.?/(.*/)?rpc(/|$)", message: "rpc/ and consumers/ are two edges: neither imports the other" },
            { regex: "^pg$|^@tawsil/db$", message: "consumers/ get their transaction's adapters from server.ts (a factory per port), not from the database package" },
          ],
        },
      ],
    },
  },
  {
    files: SOURCES("infra"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^\\.\\.?/(.*/)?(rpc|consumers)(/|$)", message: "infra/ is called by the edges through ports, never the reverse: a codec both need lives in messages/" }] }],
    },
  },
  {
    files: SOURCES("messages"),
    ignores: TESTS,
    rules: {
      "no-restricted-imports": ["error", { patterns: [...adaptersOf("messages"), { regex: "^\\.\\.?/(.*/)?(app|rpc|consumers)(/|$)", message: "messages/ maps the domain to protobuf for both edges: it knows the domain alone" }, { regex: "^(pg|kafkajs)$|^@tawsil/(db|events)$", message: "no database or broker in messages/" }] }],
    },
  },
];
