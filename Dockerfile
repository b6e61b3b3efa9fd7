# syntax=docker/dockerfile:1
# One image per process: `--build-arg PROCESS=<gateway|merchant|shipment|pricing|dispatch|tracking|webhook>`
# (`make image SERVICE=<name>`), tagged ghcr.io/tawsil/<process>:<version>, so each team releases
# its process alone. The container's command and working directory start it, as deploy/base does:
#   workingDir /app/services/shipment, command node --enable-source-maps --max-semi-space-size=4 dist/main.mjs
#   workingDir /app,                   command node --enable-source-maps --max-semi-space-size=4 packages/db/dist/migrate-cli.mjs <dir>
#   (the migration runner reads its url from MIGRATION_DATABASE_URL, never from its arguments)
# The build stage compiles each process into one JavaScript bundle (scripts/build.ts, as `make build`)
# that holds its third-party code too, so the runtime stage holds no node_modules, no TypeScript and
# no tool: only the chosen process's bundle, source map, data files and, for a service, its
# migrations with the migration runner (scripts/image-files.ts lists them).
#
# Node 22, the LTS line still supported (Node 20 reached its end of life in April 2026), on Debian
# bookworm slim, pinned by digest so every build of a release starts from the same bytes and a
# moved tag cannot change it. The digest was taken from public repositories pinning the same tag,
# not pulled here (no registry access): the release pipeline refreshes and verifies it
# (`docker buildx imagetools inspect node:22-bookworm-slim`), as deploy/README.md says.
ARG NODE_IMAGE=node:22-bookworm-slim@sha256:83f487e0a63425e5b4d146fb5e5be574bcbe1b7b843d3ebafdd95eaf7767a7e5

FROM ${NODE_IMAGE} AS build
# The same pnpm as the Makefile and package.json's packageManager.
ARG PNPM_VERSION=12.4.2
RUN npm install --global --no-audit --no-fund pnpm@${PNPM_VERSION}
WORKDIR /app
# Packages by lockfile alone: this layer is rebuilt only when the lockfile changes. The patches
# of third-party packages (pnpm-workspace.yaml's patchedDependencies) are part of that lock.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches ./patches
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
# Prisma clients are generated, not committed. generate never runs the schema engine but insists
# that one exists, and it cannot be downloaded: any existing file satisfies it (see Makefile).
RUN PRISMA_SCHEMA_ENGINE_BINARY=/bin/true PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1 \
    node_modules/.bin/tsx scripts/prisma-generate.ts
# Every bundle, then the runtime tree of the one process in /runtime, with the same paths as in
# the repository (scripts/image-files.ts): its dist/ (bundle and source map, not the make
# depfile), the data/ files it reads at run time (pricing's service areas, the gateway's OpenAPI
# document), the renderer of the gateway's /docs page, and a service's committed migrations with
# the migration runner. An unknown or missing PROCESS fails here, naming the choices.
ARG PROCESS
RUN node_modules/.bin/tsx scripts/build.ts --all \
 && mkdir /runtime \
 && node_modules/.bin/tsx scripts/image-files.ts "${PROCESS}" | xargs -0 cp --parents -t /runtime

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# Two malloc arenas instead of one per allocating thread: less resident memory, no measurable cost
# (as the mesh launcher, packages/testing/src/mesh, runs the processes locally; issue 9).
ENV MALLOC_ARENA_MAX=2
# A fixed, unprivileged uid that the pod specs name (runAsUser 10001) and that owns nothing here:
# the application files stay root-owned and read-only to it.
RUN groupadd --system --gid 10001 tawsil \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tawsil
WORKDIR /app
COPY --from=build /runtime /app
USER 10001:10001
EXPOSE 8080 7001-7006
# No default command: a pod names its working directory and command (deploy/base), and one that
# forgets them fails at once instead of guessing.
CMD ["node", "-e", "console.error('start the process: node --enable-source-maps --max-semi-space-size=4 dist/main.mjs in /app/<gateway|services/NAME>'); process.exit(64)"]
