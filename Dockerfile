# syntax=docker/dockerfile:1
# One image for all seven processes (the gateway and six services) and their migration Jobs; the
# container's command and working directory choose the process, as deploy/base does:
#   workingDir /app/services/shipment, command node --enable-source-maps dist/main.mjs
#   workingDir /app,                   command node --enable-source-maps packages/db/dist/migrate-cli.mjs <url> <dir>
# The build stage compiles each process into one JavaScript bundle (scripts/build.ts, as `make build`)
# that holds its third-party code too, so the runtime stage holds no node_modules, no TypeScript and
# no tool: only the bundles, their source maps, the migrations and the services' data files.
#
# Pin the base by digest in CI (node:20-bookworm-slim@sha256:...) for reproducible builds.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# The same pnpm as the Makefile and package.json's packageManager.
ARG PNPM_VERSION=12.4.2
RUN npm install --global --no-audit --no-fund pnpm@${PNPM_VERSION}
WORKDIR /app
# Packages by lockfile alone: this layer is rebuilt only when the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
# Prisma clients are generated, not committed. generate never runs the schema engine but insists
# that one exists, and it cannot be downloaded: any existing file satisfies it (see Makefile).
RUN PRISMA_SCHEMA_ENGINE_BINARY=/bin/true PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1 \
    node_modules/.bin/tsx scripts/prisma-generate.ts
# Every bundle, then the runtime tree in /runtime with the same paths as in the repository: each
# process's dist/ (bundle and source map, not the make depfile), each service's committed
# migrations and data/ files it reads at run time (pricing's service areas, for one), the gateway's
# data/ (the OpenAPI document) and the renderer of its /docs page, copied beside its bundle.
RUN node_modules/.bin/tsx scripts/build.ts --all \
 && mkdir /runtime \
 && find gateway services packages -name node_modules -prune -o -type f \( \
      -path '*/dist/*.mjs' -o -path '*/dist/*.mjs.map' -o -path 'services/*/prisma/migrations/*' -o -path 'services/*/data/*' \
      -o -path 'gateway/data/*' -o -path 'gateway/dist/redoc.standalone.js' \
    \) -print0 | xargs -0 cp --parents -t /runtime

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# A fixed, unprivileged uid that the pod specs name (runAsUser 10001) and that owns nothing here:
# the application files stay root-owned and read-only to it.
RUN groupadd --system --gid 10001 tawsil \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tawsil
WORKDIR /app
COPY --from=build /runtime /app
USER 10001:10001
EXPOSE 8080 7001-7006
# No process is the default: a pod that forgets its command fails at once instead of starting the
# wrong one.
CMD ["node", "-e", "console.error('choose a process: node --enable-source-maps dist/main.mjs in /app/<gateway|services/NAME>'); process.exit(64)"]
