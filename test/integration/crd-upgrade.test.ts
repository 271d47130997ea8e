/**
 * Issue 30 item 2 and the chart's CRD upgrade step (docs/operations.md, "Upgrading"): against
 * CRDs older than it needs, `petset controller` refuses to start and says how to upgrade
 * them; after the documented step (`kubectl apply --server-side --force-conflicts -f` the
 * chart's crds/) it starts.
 *
 * Embedded backend only: "older CRDs" means changing the cluster's CRDs, and the real
 * backend's cluster is shared by the test files running beside this one (their controllers
 * would refuse to start). The check itself is table-tested in test/unit/controller/crd-compat.test.ts;
 * on the real backend every test's controller passes it at start.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRD_REVISION, CRD_REVISION_ANNOTATION, PETSET_CRDS } from "../../src/controller/crd-compat.js";
import { backendFromEnv, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";
import { startController } from "../support/controller.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");

function petset(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile("node", [CLI, ...args], { cwd: REPO_ROOT, timeout: 120_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stderr });
    });
  });
}

describe.skipIf(backendFromEnv() !== "embedded")(
  "issue 30 item 2: CRDs older than the controller needs (embedded: the real cluster's CRDs are shared)",
  () => {
    let cluster: TestCluster;
    let ns: string;
    beforeAll(async () => {
      cluster = await startTestCluster();
      ns = await cluster.namespace("crd-upgrade");
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("the controller refuses to start with the fix named, and starts after the chart's CRD upgrade step", async () => {
      // CRDs as installed before this milestone: no revision annotation.
      for (const name of PETSET_CRDS)
        await cluster.kubectl(["annotate", "crd", name, `${CRD_REVISION_ANNOTATION}-`]);

      const refused = await petset([
        "controller",
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--namespace",
        ns,
        "--no-leader-elect",
        "--metrics-addr",
        "127.0.0.1:0",
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^error: refusing to start: CRD petsets\.petset\.dev has no petset\.dev\/crd-revision annotation: it is older than revision \d+, which this controller needs; CRD petsetversions\.petset\.dev has no/m,
      );
      expect(refused.stderr).toContain("kubectl apply --server-side --force-conflicts -f crds/");
      // No worker ran: nothing was written with the controller's identity.
      expect(refused.stderr).not.toContain("caches synced");

      // The documented step, with the chart's crds/ (links to the generated crds/).
      await cluster.kubectl([
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        join(REPO_ROOT, "deploy", "helm", "petset", "crds"),
      ]);
      for (const name of PETSET_CRDS) {
        const r = await cluster.kubectl([
          "get",
          "crd",
          name,
          "-o",
          `jsonpath={.metadata.annotations.${CRD_REVISION_ANNOTATION.replaceAll(".", "\\.")}}`,
        ]);
        expect(r.stdout).toBe(String(CRD_REVISION));
      }
      const controller = await startController(cluster, ns);
      await controller.stop();
    });
  },
);
