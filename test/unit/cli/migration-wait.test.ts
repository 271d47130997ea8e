import { describe, expect, it } from "vitest";
import { API_VERSION, Labels } from "../../../src/api/index.js";
import { adoptCommand } from "../../../src/cli/plugin/commands/adopt.js";
import { releaseCommand } from "../../../src/cli/plugin/commands/release.js";
import type { CommandContext } from "../../../src/cli/plugin/context.js";
import { PluginError } from "../../../src/cli/plugin/errors.js";
import type { Pod } from "../../../src/cli/plugin/migrate/objects.js";
import {
  observeWait,
  startWatch,
  type WaitVerdict,
  type WaitWatch,
} from "../../../src/cli/plugin/migrate/wait-watch.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { petSet } from "./fixtures.js";
import { midLife } from "./statefulset-fixtures.js";

const limits = { deadline: 300_000, progressEveryMs: 10_000, stallAfterMs: 30_000 };

describe("observeWait: when to print progress, when a wait has stalled", () => {
  // Observations in order: [now, fingerprint, expected verdict].
  const cases: [string, [number, string, WaitVerdict][]][] = [
    [
      "a progress line at once, then every 10 s",
      [
        [0, "a", { kind: "wait", report: true }],
        [1_000, "b", { kind: "wait", report: false }],
        [9_999, "c", { kind: "wait", report: false }],
        [10_000, "d", { kind: "wait", report: true }],
        [15_000, "e", { kind: "wait", report: false }],
        [20_000, "f", { kind: "wait", report: true }],
      ],
    ],
    [
      "stalled when the fingerprint has not changed for 30 s",
      [
        [0, "a", { kind: "wait", report: true }],
        [10_000, "a", { kind: "wait", report: true }],
        [29_999, "a", { kind: "wait", report: true }],
        [30_000, "a", { kind: "stalled", stillForMs: 30_000 }],
      ],
    ],
    [
      "a change restarts the 30 s",
      [
        [0, "a", { kind: "wait", report: true }],
        [25_000, "b", { kind: "wait", report: true }],
        [54_999, "b", { kind: "wait", report: true }],
        [55_000, "b", { kind: "stalled", stillForMs: 30_000 }],
      ],
    ],
    [
      "the --timeout deadline wins, even while things move",
      [
        [0, "a", { kind: "wait", report: true }],
        [299_999, "b", { kind: "wait", report: true }],
        [300_000, "c", { kind: "timeout" }],
      ],
    ],
  ];
  it.each(cases)("%s", (_name, steps) => {
    let watch: WaitWatch = startWatch(0);
    for (const [now, seen, expected] of steps) {
      const next = observeWait(watch, now, seen, limits);
      expect(next.verdict, `at ${now} ms`).toEqual(expected);
      watch = next.watch;
    }
  });
});

/** A clock that moves 1 s each time it is read: each poll of a wait is one second. */
function steppingContext(api: FakePetSetApi) {
  let now = 0;
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CommandContext = {
    api,
    io: {
      stdout: { write: (s) => void out.push(s), isTTY: false },
      stderr: { write: (s) => void err.push(s), isTTY: false },
    },
    clock: {
      now: () => {
        now += 1000;
        return now;
      },
    },
  };
  return { ctx, stdout: () => out.join(""), stderr: () => err.join("") };
}

/** The seconds of each `waiting for … (Ns)` line; consecutive ones at most 10 s apart. */
function progressSeconds(stderr: string, what: string): number[] {
  const lines = stderr.split("\n").filter((l) => l.startsWith(`waiting for ${what} (`));
  return lines.map((l) => Number(/\((\d+)s\)/.exec(l)?.[1]));
}

function petPod(ordinal: number): Pod {
  return {
    metadata: {
      name: `web-${ordinal}`,
      uid: `uid-pod-${ordinal}`,
      resourceVersion: String(30 + ordinal),
      labels: {
        app: "web",
        [Labels.petSet]: "web",
        [Labels.version]: "3",
        [Labels.podIndex]: String(ordinal),
      },
      ownerReferences: [
        { apiVersion: API_VERSION, kind: "PetSet", name: "web", uid: "ps-uid", controller: true },
      ],
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

describe("adopt and release never wait silently", () => {
  it("issue 31 item 1: release with no StatefulSet controller prints progress every 10 s, then names the controller and what to do after 30 s still", async () => {
    const api = new FakePetSetApi();
    const ps = petSet({ status: { updateVersion: 3, currentVersion: 3, replicas: 2 } });
    api.put({ ...ps, metadata: { ...ps.metadata, uid: "ps-uid" }, spec: { ...ps.spec, replicas: 2 } });
    api.podObjects = [petPod(0), petPod(1)];
    // The garbage collector orphans the pods; no StatefulSet controller ever takes them.
    api.onPetSetDeleted = () => {
      api.podObjects = api.podObjects.map((p) => ({
        ...p,
        metadata: { ...p.metadata, ownerReferences: [] },
      }));
    };
    const { ctx, stdout, stderr } = steppingContext(api);
    const failure = await releaseCommand(ctx, "web", { timeoutMs: 300_000, pollMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(stdout()).toContain("petset.petset.dev/web deleted (propagationPolicy: Orphan)");
    const seconds = progressSeconds(
      stderr(),
      "statefulset.apps/web to adopt the pods and record its revision",
    );
    expect(seconds[0]).toBeLessThanOrEqual(1);
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seconds.length; i++)
      expect((seconds[i] ?? 0) - (seconds[i - 1] ?? 0)).toBeLessThanOrEqual(10);
    expect(stderr()).toContain("0 of 2 pods owned, no revision recorded yet");
    expect(failure).toBeInstanceOf(PluginError);
    expect((failure as PluginError).exitCode).toBe(2);
    expect((failure as PluginError).message).toBe(
      "no StatefulSet controller has updated statefulset.apps/web's status for 30s (awaited: it adopts the pods and records its revision): is kube-controller-manager running? Once it is, run `kubectl petset release web` again to resume",
    );
  });

  it("issue 31 item 1: release whose PetSet is never deleted names the garbage collector, not the StatefulSet controller", async () => {
    const api = new FakePetSetApi();
    const ps = petSet({ status: { updateVersion: 3, currentVersion: 3, replicas: 2 } });
    api.put({ ...ps, metadata: { ...ps.metadata, uid: "ps-uid" }, spec: { ...ps.spec, replicas: 2 } });
    api.podObjects = [petPod(0), petPod(1)];
    // The delete is accepted, but nothing ever removes the PetSet.
    api.deletePetSetOrphaning = async () => {};
    const { ctx, stderr } = steppingContext(api);
    const failure = await releaseCommand(ctx, "web", { timeoutMs: 300_000, pollMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(stderr()).toContain('petset "web" is still being deleted');
    expect((failure as PluginError).message).toBe(
      'petset "web" has not been deleted for 30s (finalizers: none): is the garbage collector (kube-controller-manager) running? Once it is gone, run `kubectl petset release web` again to resume',
    );
  });

  it("issue 31 item 1: adopt with no petset controller prints progress every 10 s, then names the controller and what to do after 30 s still", async () => {
    const api = new FakePetSetApi();
    const state = midLife();
    api.statefulSets.set("web", state.statefulSet);
    api.revisions = state.revisions;
    api.podObjects = state.pods;
    api.claims = state.claims;
    // The garbage collector orphans pods and claims; no petset controller adopts them.
    api.onStatefulSetDeleted = (_name, uid) => {
      const orphan = <T extends { metadata: { ownerReferences?: { uid: string }[] } }>(o: T): T => ({
        ...o,
        metadata: {
          ...o.metadata,
          ownerReferences: (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid),
        },
      });
      api.podObjects = api.podObjects.map(orphan);
      api.claims = api.claims.map(orphan);
    };
    const { ctx, stdout, stderr } = steppingContext(api);
    const failure = await adoptCommand(ctx, "statefulset/web", {
      dryRun: false,
      timeoutMs: 300_000,
      pollMs: 0,
    }).catch((e: unknown) => e);
    expect(stdout()).toContain("statefulset.apps/web gone; its pods and claims have no controller");
    const seconds = progressSeconds(stderr(), 'petset "web" to adopt its pods and become Available');
    expect(seconds[0]).toBeLessThanOrEqual(1);
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seconds.length; i++)
      expect((seconds[i] ?? 0) - (seconds[i - 1] ?? 0)).toBeLessThanOrEqual(10);
    expect(stderr()).toContain("0 of 3 pods owned, not Available yet");
    expect((failure as PluginError).exitCode).toBe(2);
    expect((failure as PluginError).message).toBe(
      "no petset controller has updated petset.petset.dev/web's status for 30s (awaited: it adopts the pods and becomes Available): is the petset controller running (`petset controller`, or `make run`)? Once it is, run `kubectl petset adopt statefulset/web` again to resume",
    );
  });
});
