# petset: the two commands of the quick start are `make run` and `make test`.
# Every target does its own set-up (npm ci when the lock changed, TypeScript build).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
NODE_STAMP := node_modules/.package-lock.json
BUILD_STAMP := dist/.build-stamp
SOURCES := $(shell find src hack bench -name '*.ts' 2>/dev/null) tsconfig.json tsconfig.build.json package.json

.PHONY: chaos durability soak bench-quick fuzz krew-archive model-check run dev test lint-and-build test-unit test-integration test-real conformance lint build crds demo bench cluster-up cluster-down clean help

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

$(BUILD_STAMP): $(NODE_STAMP) $(SOURCES)
	npx tsc -p tsconfig.build.json
	node dist/hack/bundle.js
	@touch $@

build: $(BUILD_STAMP) ## compile TypeScript to dist/ and bundle the controller (dist/src/cli/petset.bundle.js)

crds: $(BUILD_STAMP) ## regenerate crds/ from src/api and the Kubernetes OpenAPI schemas
	node dist/hack/gen-crds.js

lint: $(NODE_STAMP) ## biome (format + lint) and the TypeScript type check
	npx biome check .
	npx tsc -p tsconfig.json --noEmit

# The type check of everything (lint) and the build's own compile at once: two tsc runs of
# about 17 and 12 s, which `make test` otherwise waits for one after the other.
lint-and-build: $(NODE_STAMP)
	@$(MAKE) --no-print-directory -j2 lint build

run: $(BUILD_STAMP) ## run the controller on the embedded API server with examples/ applied
	node dist/src/cli/petset.js dev --apply examples/ --log-level warn

test: lint-and-build ## every test: unit, then integration + e2e on the embedded server and on a real kube-apiserver (at once), then the conformance diff
	@rm -f .cache/test-failures.txt; mkdir -p .cache
	@# promtool for the alert rules' tests: built from Go modules once (about 25 min on a machine
	@# with no Go caches, a minute with warm ones, nothing once built), before any test starts.
	@bash test/cluster/build-promtool.sh > .cache/build-promtool.log 2>&1 || { cat .cache/build-promtool.log; echo "test: building promtool failed"; }
	@# zsh for the zsh completion tests (test/e2e/completion.test.ts fails without it when CI=true).
	@command -v zsh >/dev/null || [ "$${CI:-}" != "true" ] || { sudo=$$([ "$$(id -u)" = 0 ] || echo "sudo -n"); \
	  $$sudo apt-get update -qq && $$sudo apt-get install -y -qq zsh >/dev/null; } || echo "test: installing zsh failed"
	@command -v zsh >/dev/null || echo "test: zsh is missing: the zsh completion tests are skipped (with CI=true they fail)"
	@# The unit tests, the embedded suite (the longest) and the real control plane's start begin
	@# at once; the real suite starts as soon as its control plane is up (about 45 s, while the
	@# unit tests still run: it is the longest path, and most of its time is waiting on pods);
	@# each line tagged with its suite. Each suite runs two files at a time (an embedded file
	@# starts its own server; the real files share one cluster, each in its own namespaces with a
	@# namespace-scoped controller); the conformance diff follows the real suite while the
	@# embedded one may still run. TEST_SERIAL=1 runs everything serially.
	rc=0; (bash test/cluster/up.sh > .cache/cluster-up.log 2>&1) & up=$$!; \
	emb=""; uni=""; if [ -z "$${TEST_SERIAL:-}" ]; then \
	  PETSET_SUITE_PREFIX=embedded PETSET_TEST_BACKEND=embedded node test/support/run-suite.mjs integration $(EMBEDDED_PARALLEL) & emb=$$!; \
	  PETSET_SUITE_PREFIX=unit node test/support/run-suite.mjs unit & uni=$$!; \
	else \
	  node test/support/run-suite.mjs unit || rc=$$?; \
	  PETSET_TEST_BACKEND=embedded node test/support/run-suite.mjs integration || rc=$$?; \
	fi; \
	if wait $$up; then \
	  cat .cache/cluster-up.log; \
	  PETSET_SUITE_PREFIX=$${emb:+real} PETSET_TEST_BACKEND=real node test/support/run-suite.mjs integration $(EMBEDDED_ONLY) $$([ -n "$${TEST_SERIAL:-}" ] || echo "$(REAL_PARALLEL)") || rc=$$?; \
	else cat .cache/cluster-up.log; echo "test: the real control plane did not start"; rc=1; fi; \
	PETSET_SUITE_PREFIX=$${emb:+conformance} node test/support/run-suite.mjs conformance || rc=$$?; \
	if [ -n "$$uni" ]; then wait $$uni || rc=$$?; fi; \
	if [ -n "$$emb" ]; then wait $$emb || rc=$$?; fi; \
	if [ "$${CI:-}" = "true" ]; then bash test/cluster/down.sh; fi; \
	if [ -s .cache/test-failures.txt ]; then echo "---- failed tests"; cat .cache/test-failures.txt; fi; exit $$rc

test-unit: $(NODE_STAMP) ## unit tests only
	node test/support/run-suite.mjs unit

test-integration: build ## integration + e2e tests on the embedded server
	PETSET_TEST_BACKEND=embedded node test/support/run-suite.mjs integration $(EMBEDDED_PARALLEL)

# Every embedded test file starts its own server, so two run at once (most of their time is
# waiting on pods); the real backend's files share one cluster, each in its own namespaces
# with a namespace-scoped controller and Lease, so two of them run at once as well.
EMBEDDED_PARALLEL := --fileParallelism --maxWorkers=2
REAL_PARALLEL := --fileParallelism --maxWorkers=2

# Tests of the embedded server's own internals (its e2e suite, the simulated kubelet) start
# their own embedded server (so does the demo): they are not repeated on the real backend, where kwok and
# kube-apiserver play those parts and test/conformance compares the two.
EMBEDDED_ONLY := --exclude 'test/e2e/shim/**' --exclude 'test/integration/kubelet.test.ts' --exclude 'test/e2e/demo.test.ts' \
	--exclude 'test/integration/durability-slice.test.ts'

test-real: build ## integration + e2e tests on a real control plane (built from Go modules on first use), then the conformance diff
	bash test/cluster/up.sh
	rc=0; PETSET_TEST_BACKEND=real node test/support/run-suite.mjs integration $(EMBEDDED_ONLY) || rc=$$?; \
	node test/support/run-suite.mjs conformance || rc=$$?; \
	if [ "$${CI:-}" = "true" ]; then bash test/cluster/down.sh; fi; exit $$rc

conformance: build ## the embedded API server and a real kube-apiserver side by side (docs/conformance.md)
	bash test/cluster/up.sh && node test/support/run-suite.mjs conformance

model-check: $(NODE_STAMP) ## the model checker at depth (stale caches, restarts, lease handovers); MODEL_RUNS, MODEL_SEED
	seed=$${MODEL_SEED:-$$RANDOM}; echo "model-check: MODEL_SEED=$$seed"; \
	MODEL_RUNS=$${MODEL_RUNS:-5000} MODEL_SEED=$$seed npx vitest run --project unit test/unit/controller/model

durability: build ## SIGKILL petset dev --data-dir during write bursts (DURABILITY_KILLS=50, DURABILITY_SEED), results in test/durability/results/
	DURABILITY_KILLS=$${DURABILITY_KILLS:-50} npx vitest run --project durability

soak: build ## an hour of random changes across 100 PetSets (SOAK_MINUTES=60, SOAK_PETSETS=100): RSS, fds, watches, violations in test/soak/results/
	SOAK_MINUTES=$${SOAK_MINUTES:-60} SOAK_PETSETS=$${SOAK_PETSETS:-100} npx vitest run --project soak

# CHAOS_BACKEND=embedded|real|both (default both), CHAOS_RUNS per backend (default 10),
# CHAOS_SEED (default random, printed). Results: test/chaos/results/<backend>.json; docs/reliability.md.
chaos: build ## chaos campaign: seeded rollouts under controller SIGKILLs, a frozen leader, API server/etcd restarts
	seed=$${CHAOS_SEED:-$$RANDOM}; backends=$${CHAOS_BACKEND:-both}; \
	if [ "$$backends" = both ]; then backends="embedded real"; fi; rc=0; \
	for b in $$backends; do \
	  if [ "$$b" = real ]; then bash test/cluster/up.sh >/dev/null; fi; \
	  echo "chaos: CHAOS_SEED=$$seed CHAOS_RUNS=$${CHAOS_RUNS:-10} CHAOS_BACKEND=$$b"; \
	  PETSET_TEST_BACKEND=$$b CHAOS_SEED=$$seed CHAOS_RUNS=$${CHAOS_RUNS:-10} \
	    npx vitest run --project chaos --reporter verbose || rc=$$?; \
	done; exit $$rc

fuzz: build ## hostile PetSets through kubectl + HTTP fuzz of the embedded server (docs/reliability.md); FUZZ_SEED, FUZZ_RUNS, FUZZ_BACKEND
	seed=$${FUZZ_SEED:-20261201}; backend=$${FUZZ_BACKEND:-embedded}; echo "fuzz: FUZZ_SEED=$$seed FUZZ_BACKEND=$$backend"; \
	if [ "$$backend" = real ]; then bash test/cluster/up.sh; fi; \
	FUZZ_SEED=$$seed FUZZ_RUNS=$${FUZZ_RUNS:-1000} FUZZ_BACKEND=$$backend PETSET_TEST_BACKEND=$$backend npx vitest run --project fuzz

demo: build ## a scripted tour on the embedded server
	node dist/src/cli/petset.js demo

bench: build ## benchmarks, JSON results in bench/results/
	node dist/bench/run.js $(BENCH_ARGS)

# bench-quick: the headline numbers in under 3 minutes (idle machine): versions throughput,
# CPU per version and single-change latency on the embedded server (500 PetSets x 2 changes,
# GC of 1,000), the petset/StatefulSet
# ratios from one round of the rollout comparison (10 pets), and the history comparison with
# kube-controller-manager (100 sets per side, one round; GC of 200; --compare-only: neither
# the rollout on the embedded server nor history-compare's petset-only run there, 40 s of the
# 3.9 minutes it took with them, docs/benchmarks.md §2h) on a private control plane
# of kube-apiserver (built from Go modules by the first `make test`; the build takes ~20
# minutes once). The two comparisons share one private control plane, started once and stopped
# at the end (PETSET_BENCH_CLUSTER_DIR=<dir>: use that one and leave it running). Each benchmark
# in BENCH_QUICK_ONLY that writes results.headline is printed by bench/headline.ts. The
# published comparisons are 3 rounds of 20 (docs/benchmarks.md §3b) and 1,000 sets (§2h).
# The controller runs as deployed: on the image's Node release (hack/image-node.sh: Node 24,
# fetched once from the npm registry into the cache; this machine's Node 20 costs it ~18 % more
# CPU), with the image's heap flags and the manifest's MALLOC_ARENA_MAX.
BENCH_QUICK_ONLY ?= versions rollout history-compare
BENCH_QUICK_ARGS ?= --backend embedded --petsets 500 --changes 2 --gc-versions 1000 --pets 10 --statefulset --compare-only --compare-pets 10 --runs 1 --history-sets 100 --history-gc 200 \
  --controller-env MALLOC_ARENA_MAX=2 --controller-node-flag=--heap-growing-percent=15 --controller-node-flag=--max-semi-space-size=16
bench-quick: build ## headline numbers in ~3 min: versions, petset/StatefulSet and petset/kube-controller-manager ratios
	rm -rf bench/results/quick
	@keep="$${PETSET_BENCH_CLUSTER_DIR:-}"; cluster="$${keep:-$$(mktemp -d "$${TMPDIR:-/tmp}/petset-bench-quick-XXXXXX")}"; \
	node_args=""; if image_node="$$(bash hack/image-node.sh 2>/dev/null)"; then node_args="--controller-node $$image_node"; \
	  else echo "bench-quick: the image's Node release could not be fetched (hack/image-node.sh): the controller runs on this machine's Node"; fi; \
	status=0; PETSET_BENCH_CLUSTER_DIR="$$cluster" node dist/bench/run.js --only $(BENCH_QUICK_ONLY) $(BENCH_QUICK_ARGS) $$node_args --out bench/results/quick || status=$$?; \
	if [ -z "$$keep" ]; then PETSET_CLUSTER_DIR="$$cluster" bash test/cluster/down.sh >/dev/null 2>&1 || true; rm -rf "$$cluster"; fi; \
	exit $$status
	node dist/bench/headline.js bench/results/quick

cluster-up: ## build (cached) and start etcd, kube-apiserver, controller-manager, scheduler, kwok on loopback
	bash test/cluster/up.sh

cluster-down: ## stop the processes cluster-up started
	bash test/cluster/down.sh

KREW_VERSION := $(shell node -p 'require("./package.json").version')
krew-archive: build ## the kubectl-petset archive deploy/krew/petset.yaml points at (dist/krew/), with its sha256
	rm -rf dist/krew && mkdir -p dist/krew/petset/dist
	cp package.json package-lock.json dist/krew/petset/
	cp -r dist/src dist/krew/petset/dist/src
	cd dist/krew/petset && npm ci --omit=dev --ignore-scripts --no-audit --no-fund
	chmod +x dist/krew/petset/dist/src/cli/kubectl-petset.js
	tar -C dist/krew -czf dist/krew/kubectl-petset-v$(KREW_VERSION).tar.gz petset
	cd dist/krew && sha256sum kubectl-petset-v$(KREW_VERSION).tar.gz

clean: ## remove build output
	rm -rf dist
