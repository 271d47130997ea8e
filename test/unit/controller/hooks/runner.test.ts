/**
 * The hook runner with the sync, on the fake world (test/unit/controller/fake-world.ts): which
 * runs start and stop. Handlers are recording stand-ins (the real ones talk to an API server:
 * test/integration/hooks-faults.test.ts); everything else is the real sync and planner.
 */
import { KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HookRecord, PetSetVersion } from "../../../../src/api/index.js";
import type { HookHandler } from "../../../../src/controller/hooks/hook-run.js";
import { HookRunner, runsToHave } from "../../../../src/controller/hooks/runner.js";
import { LeaseLostError } from "../../../../src/controller/lease-guard.js";
import { type ControllerMetrics, createMetrics } from "../../../../src/controller/metrics.js";
import { syncPetSet } from "../../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "../fake-world.js";

const KEY = "default/web";

/** A handler that runs until stopped, remembering what it was started for. */
function recordingHandler(started: string[]): HookHandler {
  return (run, _deps, signal) => {
    started.push(`${run.record.id}#${run.record.attempts}`);
    return new Promise((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  };
}

function runnerFor(
  world: FakeWorld,
  started: string[],
  more: {
    fence?: { check(): void };
    handler?: HookHandler;
    metrics?: ControllerMetrics;
    signal?: AbortSignal;
  } = {},
) {
  const ctx = world.context();
  return new HookRunner({
    kubeConfig: new KubeConfig(),
    caches: ctx.caches,
    clock: ctx.clock,
    logger: pino({ level: "silent" }),
    events: ctx.events,
    enqueue: () => {},
    handlers: { job: more.handler ?? recordingHandler(started) },
    metrics: more.metrics,
    signal: more.signal,
    ...(more.fence !== undefined
      ? { fence: { ...more.fence, signal: new AbortController().signal, remainingMs: () => 0 } }
      : {}),
  });
}

function withPreRollout(image: string, generation: number): KubernetesObject {
  const ps = petSetObject(image) as KubernetesObject & { spec: Record<string, unknown> };
  ps.metadata = { ...ps.metadata, generation, resourceVersion: String(generation) };
  ps.spec.lifecycle = { preRollout: { job: {}, timeoutSeconds: 600 } };
  return ps;
}

async function settle(world: FakeWorld, hooks?: HookRunner, rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await syncPetSet({ ...world.context(), ...(hooks ? { hooks } : {}) }, KEY);
    world.makePodsReady();
  }
}

const records = (world: FakeWorld): HookRecord[] =>
  world.versions.list().flatMap((v) => (v as unknown as PetSetVersion).status?.hooks ?? []);

describe("runsToHave", () => {
  const v = (hooks: HookRecord[]): PetSetVersion =>
    ({ metadata: { name: "web-v2" }, spec: { version: 2 }, status: { hooks } }) as unknown as PetSetVersion;
  const rec = (id: string, phase: HookRecord["phase"], attempts: number): HookRecord => ({
    id,
    hook: "preRollout",
    handler: "job",
    phase,
    attempts,
    failures: 0,
    startedAt: "2026-11-29T12:00:00Z",
  });
  it.each([
    [
      "cached Running, asked at the same attempt: runs",
      [rec("a", "Running", 1)],
      [rec("a", "Running", 1)],
      ["a"],
    ],
    ["cached Running, not asked (superseded, cancelled): does not", [rec("a", "Running", 1)], [], []],
    [
      "cached Running, asked at the next attempt (timed out, retried): not yet",
      [rec("a", "Running", 1)],
      [rec("a", "Running", 2)],
      [],
    ],
    [
      "asked, not yet recorded Running in the cache: not yet",
      [rec("a", "Failed", 1)],
      [rec("a", "Running", 2)],
      [],
    ],
    ["asked as Failed (paused): does not", [rec("a", "Running", 1)], [rec("a", "Failed", 1)], []],
  ])("%s", (_name, cached, planned, want) => {
    expect([...runsToHave([v(cached)], planned).keys()]).toEqual(want);
  });
});

describe("the hook runner after the plan", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("issue 24 item 2: a superseded version's preRollout hook is never started, the newest one's is", async () => {
    const world = new FakeWorld();
    world.petSets.put(withPreRollout("nginx:1.27", 1));
    await settle(world);
    // Version 2: its preRollout is recorded Running, and the controller dies before it ran it.
    world.petSets.put(withPreRollout("nginx:1.28", 2));
    await settle(world, undefined, 2);
    const v2 = records(world).find((r) => r.toVersion === 2);
    expect(v2).toMatchObject({ hook: "preRollout", phase: "Running" });
    // Version 3 lands before the next sync; a new controller syncs with its runner.
    world.petSets.put(withPreRollout("nginx:1.29", 3));
    const started: string[] = [];
    const runner = runnerFor(world, started);
    try {
      await settle(world, runner, 3);
      expect(started.filter((s) => s.startsWith(v2?.id ?? "?"))).toEqual([]);
      expect(records(world).find((r) => r.id === v2?.id)?.phase).toBe("Cancelled");
      const v3 = records(world).find((r) => r.toVersion === 3);
      expect(v3?.phase).toBe("Running");
      expect(started).toEqual([`${v3?.id}#1`]);
    } finally {
      runner.stopAll();
    }
  });

  it("issue 24 item 5: no run starts while the Lease fence refuses writes; it starts once the fence holds", async () => {
    const world = new FakeWorld();
    world.petSets.put(withPreRollout("nginx:1.27", 1));
    await settle(world);
    world.petSets.put(withPreRollout("nginx:1.28", 2));
    await settle(world, undefined, 2);
    let lapsed = true;
    const started: string[] = [];
    const runner = runnerFor(world, started, {
      fence: {
        check() {
          if (lapsed) throw new LeaseLostError("not sure the Lease is held");
        },
      },
    });
    try {
      await settle(world, runner, 2);
      expect(started).toEqual([]);
      lapsed = false;
      await settle(world, runner, 1);
      expect(started).toHaveLength(1);
    } finally {
      runner.stopAll();
    }
  });
});

describe("the hook runner's metrics (issue 30)", () => {
  /** A job handler the test ends: `end` settles the run it was started for. */
  function controlledHandler(started: string[]) {
    let end: (outcome: { ok: boolean; message: string }) => void = () => {};
    const handler: HookHandler = (run, _deps, signal) => {
      started.push(`${run.record.id}#${run.record.attempts}`);
      return new Promise((resolve, reject) => {
        end = resolve;
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    };
    return { handler, end: (outcome: { ok: boolean; message: string }) => end(outcome) };
  }

  const runs = async (metrics: ControllerMetrics) =>
    (await metrics.hookRuns.get()).values.map((v) => ({ ...v.labels, value: v.value }));
  const durations = async (metrics: ControllerMetrics) =>
    Object.fromEntries(
      (await metrics.hookRunDuration.get()).values
        .filter((v) => !v.metricName?.endsWith("_bucket"))
        .map((v) => [v.metricName ?? "", { ...v.labels, value: v.value }]),
    );

  /** Version 2's preRollout run started by a runner with metrics; `stop` ends the test. */
  async function runningPreRollout() {
    const world = new FakeWorld();
    world.petSets.put(withPreRollout("nginx:1.27", 1));
    await settle(world);
    world.petSets.put(withPreRollout("nginx:1.28", 2));
    await settle(world, undefined, 2);
    const started: string[] = [];
    const metrics = createMetrics();
    const lease = new AbortController();
    const control = controlledHandler(started);
    const runner = runnerFor(world, started, { handler: control.handler, metrics, signal: lease.signal });
    await settle(world, runner, 1);
    expect(started).toHaveLength(1);
    const stop = () => {
      runner.stopAll();
      lease.abort(new Error("test over"));
    };
    return { world, metrics, runner, stop, end: control.end };
  }

  it.each([
    ["succeeds", true, "succeeded"],
    ["fails", false, "failed"],
  ] as const)(
    "issue 30: a run that %s is counted by result and timed from its start",
    async (_name, ok, result) => {
      const { world, metrics, stop, end } = await runningPreRollout();
      try {
        expect(await runs(metrics)).toEqual([]);
        world.now += 42_000;
        end({ ok, message: ok ? "done" : "exit code 1" });
        await vi.waitFor(async () => expect(await runs(metrics)).toHaveLength(1), { timeout: 10_000 });
        expect(await runs(metrics)).toEqual([{ hook: "preRollout", handler: "job", result, value: 1 }]);
        expect(await durations(metrics)).toEqual({
          petset_hook_run_duration_seconds_sum: { hook: "preRollout", handler: "job", value: 42 },
          petset_hook_run_duration_seconds_count: { hook: "preRollout", handler: "job", value: 1 },
        });
      } finally {
        stop();
      }
    },
  );

  it("issue 30: a run the plan stops (its version superseded) is counted cancelled and not timed", async () => {
    const { world, metrics, runner, stop } = await runningPreRollout();
    try {
      world.petSets.put(withPreRollout("nginx:1.29", 3));
      await settle(world, runner, 1);
      await vi.waitFor(async () => expect(await runs(metrics)).toHaveLength(1), { timeout: 10_000 });
      expect(await runs(metrics)).toEqual([
        { hook: "preRollout", handler: "job", result: "cancelled", value: 1 },
      ]);
      expect((await durations(metrics)).petset_hook_run_duration_seconds_count).toBeUndefined();
    } finally {
      stop();
    }
  });
});
