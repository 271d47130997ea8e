/**
 * Hooks under partial failure (issue 24; docs/hooks.md, "Failure table"), on the embedded
 * backend, whose kubelet runs a Job's command as a local process: each migration Job below
 * appends `start <attempt>`, then `tick <attempt>` every 0.1 s until a file of this test
 * exists or it is killed, then `end <attempt>`, so two executions at once show as
 * interleaved lines. Faults
 * come from the fault proxy (test/chaos/fault-proxy.ts) scoped to `jobs`, between the
 * controller and the API server. Also: pods/exec fenced by the Lease fence, and the external
 * handshake's withdrawal on a stale view (both backends for the latter).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GROUP, HookAnnotations, type HookRecord, VERSION, VERSION_PLURAL } from "../../src/api/index.js";
import { hookRequestValue, withdrawExternal } from "../../src/controller/hooks/external-handler.js";
import type { HandlerDeps, HookRun } from "../../src/controller/hooks/hook-run.js";
import { execInPod, PodExecError } from "../../src/controller/hooks/pod-exec.js";
import type { ControllerCaches } from "../../src/controller/informers.js";
import { LeaseLostError } from "../../src/controller/lease-guard.js";
import { systemClock } from "../../src/util/clock.js";
import { type FaultProxy, startFaultProxy } from "../chaos/fault-proxy.js";
import { backendFromEnv, eventually } from "../support/cluster.js";
import { type ControllerHandle, startController } from "../support/controller.js";
import { hookRecords } from "./hooks-support.js";
import {
  createPetSet,
  listVersions,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

const embedded = backendFromEnv() === "embedded";
let env: RolloutEnv;
let proxy: FaultProxy;
let dir: string;
let controller: ControllerHandle | undefined;

beforeAll(async () => {
  env = await startRolloutEnv("hooks-faults", { controller: false });
  proxy = await startFaultProxy(env.cluster.controllerKubeConfig);
  dir = mkdtempSync(join(tmpdir(), "petset-hooks-faults-"));
});

afterEach(async () => {
  // Each test runs its own leader; one that failed must not lead the next test's PetSets.
  await controller?.stop();
  controller = undefined;
  proxy?.clear();
});

afterAll(async () => {
  await proxy?.stop();
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A migration Job hook that logs its life to `<dir>/<name>.log` until `<dir>/<name>.go` exists. */
function migration(name: string, extra: Record<string, unknown> = {}) {
  const log = join(dir, `${name}.log`);
  const go = join(dir, `${name}.go`);
  writeFileSync(log, "");
  const script = [
    `echo "start $PETSET_HOOK_ATTEMPT" >> ${log}`,
    // Ended by its pod's deletion (SIGTERM): it says so.
    `trap 'echo "end $PETSET_HOOK_ATTEMPT" >> ${log}; exit 143' TERM`,
    `while [ ! -f ${go} ]; do echo "tick $PETSET_HOOK_ATTEMPT" >> ${log}; sleep 0.1; done`,
    `echo "end $PETSET_HOOK_ATTEMPT" >> ${log}`,
  ].join("; ");
  return {
    hook: { job: { command: ["sh", "-c", script] }, timeoutSeconds: 120, retries: 1, ...extra },
    lines: () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean),
    release: () => writeFileSync(go, ""),
  };
}

/**
 * Two executions at once, from `start <id>` / `tick <id>` / `end <id>` lines (id: the attempt,
 * or the shell's pid): every line one execution wrote while another was open.
 */
function overlap(lines: string[]): string[] {
  const open = new Set<string>();
  const out: string[] = [];
  for (const l of lines) {
    const [what, id = ""] = l.split(" ");
    const others = [...open].filter((o) => o !== id);
    if (others.length > 0) out.push(`${l} while ${others.join(",")} ran`);
    if (what === "start") open.add(id);
    if (what === "end") open.delete(id);
  }
  return out;
}

const preRollout = async (name: string): Promise<HookRecord | undefined> =>
  (await hookRecords(env, name)).find((r) => r.hook === "preRollout");

async function startLeader(viaProxy: boolean): Promise<ControllerHandle> {
  // Production-like lease timings: the test is about hooks, not about losing the Lease.
  return startController(
    viaProxy ? { ...env.cluster, controllerKubeConfig: proxy.kubeconfig } : env.cluster,
    env.namespace,
    { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  );
}

describe.runIf(embedded)("a migration Job under API faults", () => {
  it(
    "issue 24 item 1: 503s while a migration Job runs are retried; the attempt is not failed and no second Job runs beside it",
    async () => {
      controller = await startLeader(true);
      const m = migration("blip");
      await createPetSet(
        env,
        petSetManifest("blip", { replicas: 1, spec: { lifecycle: { preRollout: m.hook } } }),
      );
      await waitRolledOut(env, "blip", 1);
      await setImage(env, "blip", "nginx:1.27");
      await eventually(
        "the migration runs",
        async () => (m.lines().includes("start 1") ? true : undefined),
        WAIT_MS,
      );
      const before = proxy.stats()["status-503"] ?? 0;
      proxy.set([{ kind: "status-burst", code: 503, count: 3, resources: ["jobs"] }]);
      await eventually(
        "three Job requests answered 503",
        async () => ((proxy.stats()["status-503"] ?? 0) - before >= 3 ? true : undefined),
        WAIT_MS,
      );
      proxy.clear();
      m.release();
      await waitRolledOut(env, "blip", 2);
      expect(await preRollout("blip")).toMatchObject({ phase: "Succeeded", attempts: 1, failures: 0 });
      expect(m.lines().filter((l) => l.startsWith("start"))).toEqual(["start 1"]);
    },
    TEST_MS,
  );

  it(
    "issue 24 item 1: a Job create whose answer was lost is found, not failed and run again",
    async () => {
      controller = await startLeader(true);
      const m = migration("lost");
      await createPetSet(
        env,
        petSetManifest("lost", { replicas: 1, spec: { lifecycle: { preRollout: m.hook } } }),
      );
      await waitRolledOut(env, "lost", 1);
      proxy.set([{ kind: "lost-answer", resources: ["jobs"], count: 1, answer: "drop" }]);
      await setImage(env, "lost", "nginx:1.27");
      await eventually(
        "the migration runs",
        async () => (m.lines().includes("start 1") ? true : undefined),
        WAIT_MS,
      );
      expect(proxy.stats()["lost-answer-dropped"]).toBeGreaterThanOrEqual(1);
      proxy.clear();
      m.release();
      await waitRolledOut(env, "lost", 2);
      expect(await preRollout("lost")).toMatchObject({ phase: "Succeeded", attempts: 1, failures: 0 });
      expect(m.lines().filter((l) => l.startsWith("start"))).toEqual(["start 1"]);
    },
    TEST_MS,
  );

  it(
    "issue 24 item 1: the next attempt's Job starts only once the earlier attempt's Job and pod are gone",
    async () => {
      const first = await startLeader(false);
      controller = first;
      const m = migration("again");
      await createPetSet(
        env,
        petSetManifest("again", { replicas: 1, spec: { lifecycle: { preRollout: m.hook } } }),
      );
      await waitRolledOut(env, "again", 1);
      await setImage(env, "again", "nginx:1.27");
      await eventually(
        "attempt 1 runs",
        async () => (m.lines().includes("start 1") ? true : undefined),
        WAIT_MS,
      );
      // The leader goes; the record moves on to attempt 2 (as a leader that timed attempt 1
      // out would have written) while attempt 1's Job still runs.
      await first.stop();
      controller = undefined;
      const v2 = (await listVersions(env, "again")).find((v) => v.spec.version === 2);
      const hooks = (v2?.status?.hooks ?? []).map((r) =>
        r.hook === "preRollout"
          ? { ...r, attempts: 2, failures: 1, startedAt: new Date().toISOString(), message: "timed out" }
          : r,
      );
      await env.cluster.kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: VERSION,
          plural: VERSION_PLURAL,
          namespace: env.namespace,
          name: v2?.metadata.name ?? "",
          body: { status: { hooks } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      controller = await startLeader(false);
      await eventually(
        "attempt 2 runs",
        async () => (m.lines().includes("start 2") ? true : undefined),
        WAIT_MS,
      );
      m.release();
      await waitRolledOut(env, "again", 2);
      expect(overlap(m.lines())).toEqual([]);
      expect(await preRollout("again")).toMatchObject({ phase: "Succeeded", attempts: 2 });
    },
    TEST_MS,
  );
});

describe("an exec hook under a lost stream", () => {
  it(
    "issue 24: an exec hook whose stream was cut after it started is not run beside itself (chaos seed 7001)",
    async () => {
      controller = await startLeader(true);
      const log = join(dir, "exec.log");
      const go = join(dir, "exec.go");
      writeFileSync(log, "");
      // Runs until `go` exists; each execution names itself by its shell's pid.
      const script = [
        `echo "start $$" >> ${log}`,
        `trap 'echo "end $$" >> ${log}' EXIT`,
        `while [ ! -f ${go} ]; do sleep 0.1; done`,
      ].join("; ");
      await createPetSet(
        env,
        petSetManifest("cut", {
          replicas: 1,
          spec: {
            lifecycle: { preUpdate: { exec: { command: ["sh", "-c", script] }, timeoutSeconds: 120 } },
          },
        }),
      );
      await waitRolledOut(env, "cut", 1);
      const lines = () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
      const starts = () => lines().filter((l) => l.startsWith("start")).length;
      const upgrades = () => proxy.stats().upgrades ?? 0;
      const before = upgrades();
      // The exec starts the command, then its answer (the stream) is lost: the controller
      // cannot tell whether it runs, and execs the hook again.
      proxy.set([{ kind: "lost-answer", resources: ["pods/exec"], count: 1, answer: "drop" }]);
      await setImage(env, "cut", "nginx:1.27");
      await eventually("the hook's command starts", async () => (starts() >= 1 ? true : undefined), WAIT_MS);
      await eventually(
        "the second exec ran the command, or was told an earlier execution still runs and tried again",
        async () => (starts() >= 2 || upgrades() - before >= 3 ? true : undefined),
        WAIT_MS,
      );
      expect(proxy.stats()["lost-answer-dropped"]).toBeGreaterThanOrEqual(1);
      proxy.clear();
      writeFileSync(go, "");
      await waitRolledOut(env, "cut", 2);
      expect(overlap(lines())).toEqual([]);
      const record = (await hookRecords(env, "cut")).find((r) => r.hook === "preUpdate");
      expect(record).toMatchObject({ phase: "Succeeded", failures: 0 });
    },
    TEST_MS,
  );
});

/** A pod of this test (not a pet): exec target and handshake object. */
async function bystander(name: string): Promise<V1Pod> {
  await env.core.createNamespacedPod({
    namespace: env.namespace,
    body: {
      metadata: { name },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "app", image: "nginx:1.27" }] },
    },
  });
  return eventually(
    `pod ${name} Ready`,
    async () => {
      const p = await env.core.readNamespacedPod({ name, namespace: env.namespace });
      return p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ? p : undefined;
    },
    WAIT_MS,
  );
}

describe.runIf(embedded)("pods/exec and the Lease fence", () => {
  it(
    "issue 24 item 5: an exec is not started while the fence refuses, before connecting or as its request goes out",
    async () => {
      await bystander("exec-target");
      const marker = join(dir, "exec-ran");
      const exec = (fence: () => void) =>
        execInPod(env.cluster.kubeConfig, {
          namespace: env.namespace,
          pod: "exec-target",
          container: "app",
          command: ["sh", "-c", `echo ran >> ${marker}`],
          timeoutMs: 30_000,
          fence,
        });
      const refuse = () => {
        throw new LeaseLostError("not sure the Lease is held");
      };
      await expect(exec(refuse)).rejects.toMatchObject({ reason: "LeaseLost", transient: true });
      // The fence lapses while the connection is made: the upgrade request never leaves.
      let checks = 0;
      const lapsesAfterConnect = () => {
        checks++;
        if (checks > 1) refuse();
      };
      const err = await exec(lapsesAfterConnect).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PodExecError);
      expect((err as PodExecError).transient).toBe(true);
      expect(checks).toBeGreaterThan(1);
      expect(existsSync(marker)).toBe(false);
      expect((await exec(() => {})).exitCode).toBe(0);
      expect(readFileSync(marker, "utf8")).toBe("ran\n");
    },
    TEST_MS,
  );
});

describe("the external handshake", () => {
  it(
    "issue 24 item 8: withdrawing v2's request on a stale view leaves v3's request in place",
    async () => {
      const pod = await bystander("handshake-target");
      const context = (version: number) => ({
        id: `preUpdate.web.v${version}.0.abcd1234`,
        hook: "preUpdate" as const,
        petSet: "web",
        namespace: env.namespace,
        attempt: 1,
        pod: "handshake-target",
        toVersion: version,
      });
      const stale: V1Pod = {
        ...pod,
        metadata: {
          ...pod.metadata,
          annotations: { [HookAnnotations.request]: hookRequestValue(context(2)) },
        },
      };
      // The API has v3's request already; this replica's cache still shows v2's.
      await env.core.patchNamespacedPod(
        {
          name: "handshake-target",
          namespace: env.namespace,
          body: { metadata: { annotations: { [HookAnnotations.request]: hookRequestValue(context(3)) } } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      const deps: HandlerDeps = {
        kubeConfig: env.cluster.kubeConfig,
        caches: { pods: { get: () => stale } } as unknown as ControllerCaches,
        clock: systemClock,
        logger: pino({ level: "silent" }),
      };
      const run = {
        record: { id: context(2).id, hook: "preUpdate", handler: "external", phase: "Running", attempts: 1 },
        context: context(2),
      } as unknown as HookRun;
      await withdrawExternal(run, deps);
      const after = await env.core.readNamespacedPod({ name: "handshake-target", namespace: env.namespace });
      expect(after.metadata?.annotations?.[HookAnnotations.request]).toBe(hookRequestValue(context(3)));
      // Its own request is withdrawn.
      await withdrawExternal(
        { ...run, context: context(3), record: { ...run.record, id: context(3).id } },
        deps,
      );
      const cleared = await env.core.readNamespacedPod({
        name: "handshake-target",
        namespace: env.namespace,
      });
      expect(cleared.metadata?.annotations?.[HookAnnotations.request]).toBeUndefined();
    },
    TEST_MS,
  );
});
