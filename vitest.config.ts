import { defineConfig } from "vitest/config";

// Four projects: `unit` is pure and fast; `integration` talks to an API server chosen by
// PETSET_TEST_BACKEND (embedded | real | kubeconfig) through test/support/cluster.ts;
// `fuzz` is `make fuzz`; `conformance` compares the embedded server with a real kube-apiserver.
export default defineConfig({
  test: {
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
