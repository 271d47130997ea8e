/**
 * What `kubectl petset adopt` and `release` tell a user, through the real kubectl and the
 * built plugin, on either backend (a StatefulSet controller runs on both: kube-controller-
 * manager, or the embedded server's). The petset controller is started only half-way, so the
 * first `adopt` shows what a user sees when nobody adopts the pods: a progress line at least
 * every 10 s, then, after 30 s with no change to the PetSet's status, who is awaited and what
 * to do. Doing it (starting the controller, running adopt again) then completes the adoption,
 * and `release` hands the pods back without leaving its bookkeeping behind.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppsV1Api, type V1StatefulSet } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { eventually, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";
import { type ControllerHandle, startController } from "../support/controller.js";

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const TEST_MS = 240_000;
let cluster: TestCluster;
let namespace: string;
let apps: AppsV1Api;
let binDir: string;
let controller: ControllerHandle | undefined;

beforeAll(async () => {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run make build first`);
  binDir = mkdtempSync(join(tmpdir(), "petset-migration-bin-"));
  writeFileSync(join(binDir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(binDir, "kubectl-petset"), 0o755);
  cluster = await startTestCluster();
  namespace = await cluster.namespace("migration-messages");
  apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
}, TEST_MS);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

/** `kubectl petset ARGS -n NS` as a user runs it: kubectl finds the built plugin on PATH. */
function petset(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(
    "kubectl",
    ["petset", ...args, "-n", namespace, "--kubeconfig", cluster.kubeconfigPath],
    {
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` },
      timeout: TEST_MS,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

const legacy: V1StatefulSet = {
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "legacy" },
  spec: {
    replicas: 2,
    serviceName: "legacy",
    selector: { matchLabels: { app: "legacy" } },
    template: {
      metadata: { labels: { app: "legacy" } },
      spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
    },
  },
};

describe("migration messages (issue 31)", () => {
  it(
    "issue 31 item 1: adopt with no petset controller prints progress, then after 30 s still says who is awaited and what to do; doing it completes",
    async () => {
      await apps.createNamespacedStatefulSet({ namespace, body: legacy });
      await eventually(
        "statefulset/legacy to have 2 Ready pods and a revision",
        async () => {
          const s = await apps.readNamespacedStatefulSet({ namespace, name: "legacy" });
          return s.status?.readyReplicas === 2 && s.status.currentRevision ? true : undefined;
        },
        120_000,
      );

      const stalled = await petset("adopt", "statefulset/legacy");
      expect(stalled.code, stalled.stderr).toBe(2);
      expect(stalled.stdout).toContain(
        "statefulset.apps/legacy gone; its pods and claims have no controller",
      );
      const progress = stalled.stderr
        .split("\n")
        .filter((l) => l.startsWith('waiting for petset "legacy" to adopt its pods and become Available ('));
      expect(progress[0]).toMatch(/ \((0|1)s\): 0 of 2 pods owned, not Available yet$/);
      const seconds = progress.map((l) => Number(/\((\d+)s\)/.exec(l)?.[1]));
      expect(seconds.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < seconds.length; i++)
        expect((seconds[i] ?? 0) - (seconds[i - 1] ?? 0)).toBeLessThanOrEqual(11);
      expect(stalled.stderr).toMatch(
        /^error: no petset controller has updated petset\.petset\.dev\/legacy's status for 3\ds \(awaited: it adopts the pods and becomes Available\): is the petset controller running \(`petset controller`, or `make run`\)\? Once it is, run `kubectl petset adopt statefulset\/legacy` again to resume$/m,
      );

      controller = await startController(cluster, namespace);
      const resumed = await petset("adopt", "statefulset/legacy");
      expect(resumed, resumed.stderr).toMatchObject({ code: 0 });
      expect(resumed.stdout).toContain(
        "petset.petset.dev/legacy adopted from statefulset.apps/legacy: no pod restarted",
      );
    },
    TEST_MS,
  );

  it(
    "issue 31 item 4: after release the StatefulSet keeps no petset.dev bookkeeping, and convert gives a clean manifest",
    async () => {
      const released = await petset("release", "legacy");
      expect(released, released.stderr).toMatchObject({ code: 0 });
      expect(released.stdout).toContain("released to statefulset.apps/legacy: no pod restarted");
      const sts = await apps.readNamespacedStatefulSet({ namespace, name: "legacy" });
      const bookkeeping = [
        ...Object.keys(sts.metadata?.annotations ?? {}),
        ...Object.keys(sts.metadata?.labels ?? {}),
      ].filter((k) => k.startsWith("petset.dev/"));
      expect(bookkeeping).toEqual([]);
      const yaml = await cluster.kubectl(["get", "sts", "legacy", "-n", namespace, "-o", "yaml"]);
      const converted = await new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = spawn("kubectl", ["petset", "convert", "-f", "-"], {
          env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` },
        });
        let stdout = "";
        child.stdout.on("data", (c: Buffer) => {
          stdout += c.toString();
        });
        child.on("close", (code) => resolve({ code: code ?? 1, stdout }));
        child.stdin.end(yaml.stdout);
      });
      expect(converted.code).toBe(0);
      const manifest = parse(converted.stdout) as {
        kind: string;
        metadata: { labels?: object; annotations?: object };
      };
      expect(manifest.kind).toBe("PetSet");
      const keys = [
        ...Object.keys(manifest.metadata.labels ?? {}),
        ...Object.keys(manifest.metadata.annotations ?? {}),
      ];
      expect(keys.filter((k) => k.startsWith("petset.dev/"))).toEqual([]);
    },
    TEST_MS,
  );
});
