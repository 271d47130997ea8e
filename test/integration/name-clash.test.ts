/**
 * Issue 30, the name: another project ships a `PetSet` kind (group apps.k8s.appscode.com).
 * With its CRD installed beside ours, and a PetSet of each group named alike in one namespace,
 * the plugin (`kubectl petset status` / `history`) still addresses petset.dev objects, and
 * `kubectl get petsets.petset.dev` tells them apart (docs/operations.md, "Two PetSet kinds").
 *
 * Both backends. On the real backend the other CRD is cluster-wide for this test's seconds
 * and deleted after it: kubectl resolves the bare `petset` to the other group meanwhile (as it
 * would for a user), so scripts and tests say `petsets.petset.dev`. kubectl also caches
 * discovery on disk per server: after the deletion `kubectl api-resources` (which bypasses and
 * rewrites that cache) is run until the other group is gone from it, so no later `kubectl get
 * petset` resolves to a group that no longer exists.
 */

import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { eventually, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";
import { type ControllerHandle, startController } from "../support/controller.js";

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const OTHER_CRD = "petsets.apps.k8s.appscode.com";

/** The other project's CRD, reduced to what makes the clash: same kind, plural and singular. */
const otherCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: OTHER_CRD },
  spec: {
    group: "apps.k8s.appscode.com",
    names: { kind: "PetSet", listKind: "PetSetList", plural: "petsets", singular: "petset" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

let cluster: TestCluster;
let ns: string;
let binDir: string;
let controller: ControllerHandle | undefined;

function plugin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "kubectl",
      ["petset", ...args, "--kubeconfig", cluster.kubeconfigPath, "-n", ns],
      { env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}`, NO_COLOR: "" }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run make build first`);
  cluster = await startTestCluster();
  ns = await cluster.namespace("name-clash");
  binDir = mkdtempSync(join(tmpdir(), "petset-name-clash-bin-"));
  writeFileSync(join(binDir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(binDir, "kubectl-petset"), 0o755);
});

afterAll(async () => {
  await controller?.stop();
  if (cluster) {
    await cluster.kubectl(["delete", "crd", OTHER_CRD, "--ignore-not-found"], { allowFail: true });
    await eventually("kubectl's discovery cache no longer lists the other PetSet group", async () => {
      const r = await cluster.kubectl(["api-resources", "--api-group=apps.k8s.appscode.com", "-o", "name"], {
        allowFail: true,
      });
      return r.code === 0 && r.stdout.trim() === "" ? true : undefined;
    });
  }
  await cluster?.stop();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

describe("issue 30 the name: petsets.apps.k8s.appscode.com installed beside petsets.petset.dev", () => {
  it("the plugin's status and history address the petset.dev PetSet, not the other one named alike", async () => {
    // One PetSet of each group, both named web; apiVersion says which is which.
    const ours = {
      apiVersion: "petset.dev/v1alpha1",
      kind: "PetSet",
      metadata: { name: "web", namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
        },
      },
    };
    const theirs = {
      apiVersion: "apps.k8s.appscode.com/v1",
      kind: "PetSet",
      metadata: { name: "web", namespace: ns },
      spec: { replicas: 7, podManagementPolicy: "Parallel" },
    };
    await cluster.kubectl(["apply", "-f", "-"], { input: stringify(ours) });
    controller = await startController(cluster, ns);
    await eventually(
      "the petset.dev PetSet web completes its rollout",
      async () => {
        const r = await cluster.kubectl([
          "get",
          "petsets.petset.dev",
          "web",
          "-n",
          ns,
          "-o",
          'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}',
        ]);
        return r.stdout === "RolloutComplete" ? true : undefined;
      },
      90_000,
    );

    // The other kind arrives once ours has rolled out: on the shared real cluster, for as short
    // a time as the checks take.
    await cluster.kubectl(["apply", "-f", "-"], { input: stringify(otherCrd) });
    await cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", `crd/${OTHER_CRD}`]);
    await cluster.kubectl(["apply", "-f", "-"], { input: stringify(theirs) });

    const status = await plugin("status", "web");
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/web/);
    expect(status.stdout).not.toMatch(/\b7\b/);

    const history = await plugin("history", "web");
    expect(history).toMatchObject({ code: 0, stderr: "" });
    const rows = history.stdout.trimEnd().split("\n").slice(1);
    expect(rows).toHaveLength(1);
    // Version 1 of ours (the other PetSet has no versions, and 7 replicas).
    expect(rows[0]).toMatch(/^1\s+current,update\s+1\s.*\s1\s+initial version$/);

    // The fully qualified names tell the two kinds apart.
    const apiVersion = async (resource: string) =>
      (await cluster.kubectl(["get", resource, "web", "-n", ns, "-o", "jsonpath={.apiVersion}"])).stdout;
    expect(await apiVersion("petsets.petset.dev")).toBe("petset.dev/v1alpha1");
    expect(await apiVersion(OTHER_CRD)).toBe("apps.k8s.appscode.com/v1");
  });
});
