import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The longest integration files of an idle make test (the "slowest files" line of
 * test/support/run-suite.mjs), longest first, per backend. make test runs two files at a time
 * per suite: a long file started last keeps one worker busy alone at the end of the suite (in a
 * fresh clone vitest has no timings and starts the biggest files first, so chaos-slice, a small
 * file of a minute, ended both suites). Started first, the short files fill in behind them.
 * Keep it roughly in order when a file gets much faster or slower.
 */
const SLOW_FIRST: Record<string, string[]> = {
  embedded: [
    "test/integration/network-faults.test.ts",
    "test/e2e/plugin.test.ts",
    "test/integration/chaos-slice.test.ts",
    "test/e2e/fresh-clone.test.ts",
    "test/integration/hooks-takeover.test.ts",
    "test/integration/versions.test.ts",
    "test/e2e/shim/kubectl-basics.test.ts",
    "test/integration/migration-messages.test.ts",
    "test/integration/rollout-crash.test.ts",
    "test/integration/gitops.test.ts",
    "test/integration/rollout-steps.test.ts",
    "test/e2e/shim/http-fuzz.test.ts",
    "test/integration/adoption.test.ts",
    "test/e2e/first-hour-messages.test.ts",
    "test/integration/durability-slice.test.ts",
    "test/integration/rollout-storm.test.ts",
  ],
  real: [
    "test/integration/versions.test.ts",
    "test/integration/gitops.test.ts",
    "test/integration/network-faults.test.ts",
    "test/integration/chaos-slice.test.ts",
    "test/integration/hooks-takeover.test.ts",
    "test/e2e/plugin.test.ts",
    "test/integration/migration-messages.test.ts",
    "test/integration/failover.test.ts",
    "test/integration/rollout-canary.test.ts",
    "test/integration/rollout-crash.test.ts",
    "test/integration/helm.test.ts",
    "test/e2e/completion.test.ts",
    "test/integration/rollout-ha.test.ts",
  ],
};

/** vitest's order (failed first, then longest by its cache), but SLOW_FIRST's files first. */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = SLOW_FIRST[process.env.PETSET_TEST_BACKEND ?? "embedded"] ?? [];
    const rank = (f: TestSpecification) => {
      const i = first.findIndex((path) => f.moduleId.endsWith(`/${path}`));
      return i < 0 ? first.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.f);
  }
}

// Four projects: `unit` is pure and fast; `integration` talks to an API server chosen by
// PETSET_TEST_BACKEND (embedded | real | kubeconfig) through test/support/cluster.ts;
// `fuzz` is `make fuzz`; `conformance` compares the embedded server with a real kube-apiserver.
export default defineConfig({
  test: {
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        test: {
          name: "unit",
          // test/upstream/controller-table: Kubernetes' StatefulSet controller table, in process.
          include: ["test/unit/**/*.test.ts", "test/upstream/controller-table/**/*.test.ts"],
          environment: "node",
          // One module registry per worker, not per file: importing client-node and src/ again
          // for every file was most of the suite's CPU (docs/benchmarks.md, "make test time").
          isolate: false,
          // Property tests: a fixed seed unless FC_SEED says otherwise (test/support/fast-check-seed.ts).
          setupFiles: ["test/support/fast-check-seed.ts"],
          // CPU-bound, beside the embedded suite and the control plane's start: vitest's 5 s
          // timed out certificate signing and CRD reads at load 18 (a timeout, not a speed target).
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts", "test/upstream/*.test.ts"],
          environment: "node",
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Not in make test: `make durability` and `make soak` (docs/reliability.md).
        test: {
          name: "durability",
          include: ["test/durability/**/*.test.ts"],
          environment: "node",
          testTimeout: 3_600_000,
        },
      },
      {
        test: {
          name: "soak",
          include: ["test/soak/**/*.test.ts"],
          environment: "node",
          testTimeout: 6 * 3_600_000,
        },
      },
      {
        // `make chaos`: the long chaos campaign (test/chaos); a slice runs in `integration`.
        test: {
          name: "chaos",
          include: ["test/chaos/**/*.test.ts"],
          environment: "node",
          fileParallelism: false,
        },
      },
      {
        // `make fuzz`: hostile PetSets through kubectl and an HTTP fuzz of the embedded server
        // (test/fuzz/README in docs/reliability.md); FUZZ_SEED, FUZZ_RUNS, FUZZ_BACKEND.
        test: {
          name: "fuzz",
          include: ["test/fuzz/**/*.fuzz.ts"],
          environment: "node",
          testTimeout: 3_600_000,
          hookTimeout: 900_000,
        },
      },
      {
        // The embedded server and a real kube-apiserver side by side (docs/conformance.md).
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          environment: "node",
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
