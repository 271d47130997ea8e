/**
 * Roles end to end, on both backends (docs/rollouts.md "Roles"): the app labels its pods
 * (here: the test, as a sidecar would), the leader's pet is updated last, and a switchover
 * hook answered by `kubectl petset observe` running a bash script moves the leader label to
 * the candidate before the leader restarts. The invariant monitor watches every rollout.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cluster.js";
import type { InvariantMonitor } from "../support/invariant-monitor.js";
import {
  createPetSet,
  expectNoViolations,
  listPods,
  listVersions,
  monitor,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  waitRolledOut,
} from "./rollout-support.js";

const ROLE = "petset.dev/role";
const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
let env: RolloutEnv;
let dir: string;

beforeAll(async () => {
  env = await startRolloutEnv("roles");
  dir = mkdtempSync(join(tmpdir(), "petset-roles-"));
});

afterAll(async () => {
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The app: every 200 ms, a pod of the set without a role label gets one: `leader` for the
 * first pod of `initialLeader` it sees, `follower` otherwise. It never overrides a label, so a
 * switchover script can move the role.
 */
function startApp(name: string, initialLeader: string): () => Promise<void> {
  let stopped = false;
  let leaderSeen = false;
  const loop = (async () => {
    while (!stopped) {
      for (const pod of await listPods(env, name)) {
        if (pod.metadata?.labels?.[ROLE] !== undefined || pod.metadata?.deletionTimestamp) continue;
        const podName = pod.metadata?.name ?? "";
        const role = podName === initialLeader && !leaderSeen ? "leader" : "follower";
        if (role === "leader") leaderSeen = true;
        await env.core
          .patchNamespacedPod(
            { name: podName, namespace: env.namespace, body: { metadata: { labels: { [ROLE]: role } } } },
            merge,
          )
          .catch(() => {});
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

const updateDeletions = (m: InvariantMonitor) =>
  m
    .moves()
    .filter((x) => x.kind === "delete")
    .map((x) => x.pod);

async function labelled(name: string): Promise<boolean> {
  return (await listPods(env, name)).every((p) => p.metadata?.labels?.[ROLE] !== undefined);
}

describe("roles", () => {
  it(
    "the leader at ordinal 2 is updated last",
    async () => {
      await createPetSet(env, petSetManifest("top", { spec: { roles: {} } }));
      const stopApp = startApp("top", "top-2");
      try {
        await waitRolledOut(env, "top", 1);
        while (!(await labelled("top"))) await new Promise((r) => setTimeout(r, 100));
        const m = await monitor(env, "top");
        await setImage(env, "top", "nginx:1.27");
        await waitRolledOut(env, "top", 2);
        expect(updateDeletions(m)).toEqual(["top-1", "top-0", "top-2"]);
        await expectNoViolations(m);
      } finally {
        await stopApp();
      }
    },
    TEST_MS,
  );

  it(
    "the leader at ordinal 0 hands over through a switchover script before it restarts, and goes last",
    async () => {
      const script = join(dir, "switchover.sh");
      writeFileSync(
        script,
        [
          "#!/usr/bin/env bash",
          "set -euo pipefail",
          '[ "$PETSET_HOOK" = switchover ] || exit 0',
          `kubectl label pod -n "$PETSET_NAMESPACE" "$PETSET_CANDIDATE" ${ROLE}=leader --overwrite >/dev/null`,
          `kubectl label pod -n "$PETSET_NAMESPACE" "$PETSET_POD" ${ROLE}=follower --overwrite >/dev/null`,
          'echo "leader role moved from $PETSET_POD to $PETSET_CANDIDATE"',
          "",
        ].join("\n"),
        { mode: 0o755 },
      );
      await createPetSet(
        env,
        petSetManifest("db", { spec: { roles: { switchover: { external: {}, timeoutSeconds: 120 } } } }),
      );
      const stopApp = startApp("db", "db-0");
      const observer = spawn(
        process.execPath,
        [
          join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js"),
          "observe",
          "db",
          "-n",
          env.namespace,
          "--interval",
          "200ms",
          "--",
          script,
        ],
        { stdio: "ignore", env: { ...process.env, KUBECONFIG: env.cluster.kubeconfigPath } },
      );
      try {
        await waitRolledOut(env, "db", 1);
        while (!(await labelled("db"))) await new Promise((r) => setTimeout(r, 100));
        const m = await monitor(env, "db");
        await setImage(env, "db", "nginx:1.27");
        await waitRolledOut(env, "db", 2);
        // db-0 led: it goes last, after the switchover gave the role to db-2 (a follower at v2).
        expect(updateDeletions(m)).toEqual(["db-2", "db-1", "db-0"]);
        const records = (await listVersions(env, "db")).flatMap((v) => v.status?.hooks ?? []);
        expect(records.map((r) => [r.hook, r.pod, r.candidate, r.phase, r.message])).toEqual([
          ["switchover", "db-0", "db-2", "Succeeded", "leader role moved from db-0 to db-2"],
        ]);
        const leaders = (await listPods(env, "db")).filter((p) => p.metadata?.labels?.[ROLE] === "leader");
        expect(leaders.map((p) => p.metadata?.name)).toEqual(["db-2"]);
        await expectNoViolations(m);
      } finally {
        observer.kill("SIGTERM");
        await stopApp();
      }
    },
    TEST_MS,
  );
});
