/**
 * `kubectl petset adopt statefulset/NAME` and `release`: a 3-pet set with claims, updated once
 * so two ControllerRevisions exist, is adopted without restarting or replacing a pod or claim;
 * its history shows the imported versions; an image update afterwards rolls through petset; an
 * adoption stopped after the PetSet was created resumes when run again; release hands the pods
 * back to a StatefulSet, whose controller then counts them as its own and replaces none.
 *
 * Both backends, the same test: on the real one kube-controller-manager's StatefulSet controller
 * runs the StatefulSets (test/cluster runs it), on the embedded one the API server's own
 * (src/apiserver-shim/controllers/statefulset-controller.ts). Real kubectl, the built plugin on
 * PATH (run `npx tsc -p tsconfig.build.json` first).
 *
 * The three adoptions (web, db, cache: one namespace, one controller, nothing else shared) run
 * at once on a real API server; the release of web follows them. The embedded server runs in
 * this process beside the controller: there the three at once cost the controller its Lease at
 * load 20, so they run one after the other.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AppsV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  type V1StatefulSet,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Labels } from "../../src/api/index.js";
import { MigrationAnnotations } from "../../src/cli/plugin/migrate/adopt-plan.js";
import { eventually, REPO_ROOT } from "../support/cluster.js";
import {
  getPetSet,
  listClaims,
  listVersions,
  type RolloutEnv,
  SLOW_BACKEND,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
let env: RolloutEnv;
let apps: AppsV1Api;
let binDir: string;

beforeAll(async () => {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run npx tsc -p tsconfig.build.json first`);
  binDir = mkdtempSync(join(tmpdir(), "petset-adopt-bin-"));
  writeFileSync(join(binDir, "kubectl-petset"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN}" "$@"\n`);
  chmodSync(join(binDir, "kubectl-petset"), 0o755);
  env = await startRolloutEnv("adopt");
  apps = env.cluster.kubeConfig.makeApiClient(AppsV1Api);
}, TEST_MS);

afterAll(async () => {
  await env?.stop();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

function statefulSet(name: string, image: string, whenDeleted = "Retain"): V1StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas: 3,
      serviceName: name,
      persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled: "Retain" },
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "app", image, volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  };
}

/** `kubectl petset ARGS -n NS` as a user runs it: kubectl finds the built plugin on PATH. */
function petset(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(
    "kubectl",
    ["petset", ...args, "-n", env.namespace, "--kubeconfig", env.cluster.kubeconfigPath],
    { env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` }, timeout: TEST_MS },
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

async function setPods(name: string): Promise<V1Pod[]> {
  const list = await env.core.listNamespacedPod({ namespace: env.namespace, labelSelector: `app=${name}` });
  return list.items.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

const restarts = (pod: V1Pod) =>
  (pod.status?.containerStatuses ?? []).reduce((sum, s) => sum + s.restartCount, 0);
const identity = (pods: V1Pod[]) =>
  pods.map((p) => `${p.metadata?.name} ${p.metadata?.uid} restarts=${restarts(p)}`);

/** A StatefulSet at its second revision, every pod on it and Ready. */
async function runningStatefulSet(name: string, whenDeleted = "Retain"): Promise<void> {
  await apps.createNamespacedStatefulSet({
    namespace: env.namespace,
    body: statefulSet(name, "registry.k8s.io/pause:3.9", whenDeleted),
  });
  await waitStatefulSetRolledOut(name, 1);
  await apps.patchNamespacedStatefulSet({
    namespace: env.namespace,
    name,
    body: [
      { op: "replace", path: "/spec/template/spec/containers/0/image", value: "registry.k8s.io/pause:3.10" },
    ],
  });
  await waitStatefulSetRolledOut(name, 2);
}

async function waitStatefulSetRolledOut(name: string, revisions: number): Promise<void> {
  await eventually(
    `statefulset ${name} at revision ${revisions} with 3 Ready pods`,
    async () => {
      const sts = await apps.readNamespacedStatefulSet({ namespace: env.namespace, name });
      const history = await apps.listNamespacedControllerRevision({
        namespace: env.namespace,
        labelSelector: `app=${name}`,
      });
      const pods = await setPods(name);
      const ok =
        sts.status?.observedGeneration === sts.metadata?.generation &&
        sts.status?.updateRevision === sts.status?.currentRevision &&
        sts.status?.readyReplicas === 3 &&
        history.items.length === revisions &&
        pods.length === 3 &&
        pods.every((p) => p.metadata?.labels?.["controller-revision-hash"] === sts.status?.updateRevision);
      return ok ? true : undefined;
    },
    WAIT_MS,
    500,
  );
}

const claimUids = async (name: string) =>
  (await listClaims(env))
    .filter((c) => c.metadata?.name?.startsWith(`data-${name}-`))
    .map((c) => `${c.metadata?.name} ${c.metadata?.uid}`)
    .sort();

const adoption = SLOW_BACKEND ? it.concurrent : it;

describe("kubectl petset adopt statefulset and release", () => {
  adoption(
    "issue 31 item 1: a StatefulSet gets its pods; adopting it (two revisions) restarts none, then petset rolls an update",
    async () => {
      await runningStatefulSet("web");
      const podsBefore = identity(await setPods("web"));
      const claimsBefore = await claimUids("web");

      const dry = await petset("adopt", "statefulset/web", "--dry-run");
      expect(dry.stderr).toBe("");
      expect(dry.stdout).toMatch(/web-v1 .* to create/);
      expect(dry.stdout).toMatch(/web-v2 .* to create/);
      expect(await listVersions(env, "web")).toEqual([]);

      const result = await petset("adopt", "statefulset/web", "--timeout", "3m");
      expect(result.stderr).not.toMatch(/^error/m);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("no pod restarted");

      expect(identity(await setPods("web"))).toEqual(podsBefore);
      expect(await claimUids("web")).toEqual(claimsBefore);
      const ps = await getPetSet(env, "web");
      for (const pod of await setPods("web"))
        expect(pod.metadata?.ownerReferences?.find((r) => r.controller)?.uid).toBe(ps.metadata.uid);
      const versions = await listVersions(env, "web");
      expect(versions.map((v) => v.metadata.name)).toEqual(["web-v1", "web-v2"]);
      const psv = await env.cluster.kubectl([
        "get",
        "psv",
        "-n",
        env.namespace,
        "-l",
        `${Labels.petSet}=web`,
      ]);
      expect(psv.stdout).toMatch(/web-v1\s+web\s+1/);
      expect(psv.stdout).toMatch(/web-v2\s+web\s+2/);
      await waitRolledOut(env, "web", 2);

      await setImage(env, "web", "registry.k8s.io/pause:3.11");
      await waitRolledOut(env, "web", 3, TEST_MS / 2);
      expect((await listVersions(env, "web")).map((v) => v.spec.version)).toEqual([1, 2, 3]);
    },
    TEST_MS * 2,
  );

  adoption(
    "resumes an adoption interrupted after the PetSet was created; claims with whenDeleted: Delete pass to the PetSet",
    async () => {
      await runningStatefulSet("db", "Delete");
      const claimsBefore = await claimUids("db");
      const podsBefore = identity(await setPods("db"));

      const first = await petset("adopt", "statefulset/db", "--stop-after", "petset");
      expect(first.code).toBe(0);
      expect(first.stderr).toContain('stopped after step "petset"');
      const ps = await getPetSet(env, "db");
      expect(ps.metadata.annotations?.[MigrationAnnotations.adoptedFrom]).toBe("statefulset/db");
      expect(await apps.readNamespacedStatefulSet({ namespace: env.namespace, name: "db" })).toBeDefined();

      const again = await petset("adopt", "statefulset/db", "--timeout", "3m");
      expect(again.stderr).not.toMatch(/^error/m);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('resuming the adoption into petset "db"');
      expect(again.stdout).toContain("no pod restarted");
      expect(identity(await setPods("db"))).toEqual(podsBefore);
      expect(await claimUids("db")).toEqual(claimsBefore);
      const claims = (await listClaims(env)).filter((c) => c.metadata?.name?.startsWith("data-db-"));
      for (const claim of claims)
        expect(claim.metadata?.ownerReferences?.find((r) => r.controller)?.uid).toBe(ps.metadata.uid);
      await waitRolledOut(env, "db", 2);
    },
    TEST_MS * 2,
  );

  adoption(
    "adopts mid-rollout (partition: two revisions live): pods keep their versions, then petset finishes the rollout",
    async () => {
      const body = statefulSet("cache", "registry.k8s.io/pause:3.9");
      if (body.spec) body.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 2 } };
      await apps.createNamespacedStatefulSet({ namespace: env.namespace, body });
      await waitStatefulSetRolledOut("cache", 1);
      await apps.patchNamespacedStatefulSet({
        namespace: env.namespace,
        name: "cache",
        body: [
          {
            op: "replace",
            path: "/spec/template/spec/containers/0/image",
            value: "registry.k8s.io/pause:3.10",
          },
        ],
      });
      await eventually(
        "cache-2 on the second revision, cache-0 and cache-1 on the first",
        async () => {
          const sts = await apps.readNamespacedStatefulSet({ namespace: env.namespace, name: "cache" });
          const pods = await setPods("cache");
          const revisions = pods.map((p) => p.metadata?.labels?.["controller-revision-hash"]);
          const ok =
            sts.status?.updatedReplicas === 1 &&
            sts.status?.readyReplicas === 3 &&
            pods.every((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) &&
            revisions[2] === sts.status?.updateRevision &&
            revisions[0] === sts.status?.currentRevision &&
            revisions[1] === sts.status?.currentRevision;
          return ok ? true : undefined;
        },
        WAIT_MS,
        500,
      );
      const podsBefore = identity(await setPods("cache"));

      const result = await petset("adopt", "statefulset/cache", "--timeout", "3m");
      expect(result.stderr).not.toMatch(/^error/m);
      expect(result.code).toBe(0);
      expect(identity(await setPods("cache"))).toEqual(podsBefore);
      expect((await setPods("cache")).map((p) => p.metadata?.labels?.[Labels.version])).toEqual([
        "1",
        "1",
        "2",
      ]);

      await env.custom.patchNamespacedCustomObject(
        {
          group: "petset.dev",
          version: "v1alpha1",
          plural: "petsets",
          namespace: env.namespace,
          name: "cache",
          body: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
        },
        mergePatch,
      );
      await waitRolledOut(env, "cache", 2, TEST_MS / 2);
      expect((await listVersions(env, "cache")).map((v) => v.spec.version)).toEqual([1, 2]);
    },
    TEST_MS * 2,
  );

  // After the three above (vitest runs consecutive concurrent cases together): it releases web.
  it(
    "issue 31 item 1: releases the adopted PetSet back to a StatefulSet without a restart, and its controller takes the pods over",
    async () => {
      await waitRolledOut(env, "web", 3);
      const podsBefore = identity(await setPods("web"));
      const result = await petset("release", "web", "--timeout", "3m");
      expect(result.stderr).not.toMatch(/^error/m);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("released to statefulset.apps/web: no pod restarted");
      expect(identity(await setPods("web"))).toEqual(podsBefore);
      const sts = await apps.readNamespacedStatefulSet({ namespace: env.namespace, name: "web" });
      expect(sts.spec?.updateStrategy?.type).toBe("RollingUpdate");
      for (const pod of await setPods("web")) {
        expect(pod.metadata?.ownerReferences?.find((r) => r.controller)?.uid).toBe(sts.metadata?.uid);
        expect(pod.metadata?.labels?.["controller-revision-hash"]).toBe(sts.status?.updateRevision);
        expect(pod.metadata?.labels?.[Labels.petSet]).toBeUndefined();
      }
      expect(await listVersions(env, "web")).toEqual([]);
      // The StatefulSet controller (kube's, or the embedded server's), running the released set
      // with its RollingUpdate strategy restored, counts every pod as updated and replaces none.
      await eventually(
        "the StatefulSet controller to count 3 updated pods of web",
        async () => {
          const s = await apps.readNamespacedStatefulSet({ namespace: env.namespace, name: "web" });
          return s.status?.updatedReplicas === 3 &&
            s.status?.currentRevision === s.status?.updateRevision &&
            s.status?.observedGeneration === s.metadata?.generation
            ? true
            : undefined;
        },
        WAIT_MS,
        500,
      );
      expect(identity(await setPods("web"))).toEqual(podsBefore);
    },
    TEST_MS,
  );
});
