# syntax=docker/dockerfile:1
# One image for all seven processes (the gateway and six services) and their migration Jobs; the
# container's command and working directory choose the process, as deploy/base does:
#   workingDir /app/services/shipment, command node --import tsx src/main.ts
#   workingDir /app,                   command node --import tsx packages/db/src/migrate-cli.ts <url> <dir>
# TypeScript runs through tsx exactly as in `make dev`; tsx is a devDependency, so the image holds
# the workspace's full install rather than a production-only one.
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

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# A fixed, unprivileged uid that the pod specs name (runAsUser 10001) and that owns nothing here:
# the application files stay root-owned and read-only to it.
RUN groupadd --system --gid 10001 tawsil \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tawsil
WORKDIR /app
COPY --from=build /app /app
USER 10001:10001
EXPOSE 8080 7001-7006
# No process is the default: a pod that forgets its command fails at once instead of starting the
# wrong one.
CMD ["node", "-e", "console.error('choose a process: node --import tsx <gateway|services/NAME>/src/main.ts'); process.exit(64)"]
