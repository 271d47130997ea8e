import { defineConfig } from "vitest/config";

// Two projects: `unit` is pure and fast; `integration` talks to an API server chosen by
// PETSET_TEST_BACKEND (embedded | real | kubeconfig) through test/support/cluster.ts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
