/**
 * Targeted replacement (issue 28, replacement.ts): a pod annotated petset.dev/replace is
 * replaced once, through preUpdate (claims kept) or preUpdate then preScaleDown (claims
 * recreated, issue 26), within maxUnavailable, at its own version, whatever the pause or rollout
 * state.
 */
import { describe, expect, it } from "vitest";
import { Annotations, claimName } from "../../../../src/api/index.js";
import type { PodView } from "../../../../src/controller/planner/views.js";
import { makePetSet } from "./fixtures.js";
import { allRecords, hookSpec, hookSync, withHooks } from "./hook-sim.js";
import { at, moves, plan, policies, v1, v2, withPolicy } from "./plan-helpers.js";
import { createWorld, podsOf, runUntilConverged, tick, type World } from "./simulate.js";

const asked = (pod: PodView, mode = "keep", reason?: string): PodView => ({
  ...pod,
  annotations: {
    ...pod.annotations,
    [Annotations.replace]: mode,
    ...(reason !== undefined ? { [Annotations.replaceReason]: reason } : {}),
  },
});

function ask(world: World, ordinal: number, mode: "keep" | "recreate"): string {
  const sim = world.pods.get(`web-${ordinal}`);
  if (sim === undefined) throw new Error(`no web-${ordinal}`);
  world.serial++;
  sim.view = { ...asked(sim.view, mode, "disk errors"), resourceVersion: String(world.serial) };
  return sim.view.uid;
}

describe.each(policies)("issue 28: targeted replacement in the plan (%s)", (policy) => {
  const p = withPolicy(policy);

  it("replaces the asked pet, with an Event naming the reason", () => {
    const [a, b, c] = at(v1, [0, 1, 2]);
    const result = plan(p({ pods: [a!, asked(b!, "keep", "disk errors"), c!] }));
    expect(moves(result)).toEqual(["delete web-1 (replace)"]);
    expect(result.events.find((e) => e.reason === "ReplacingPet")?.message).toContain("disk errors");
  });

  it("waits while maxUnavailable pets are unavailable", () => {
    const [a, b] = at(v1, [0, 1]);
    const [c] = at(v1, [2], { ready: false });
    expect(moves(plan(p({ pods: [a!, asked(b!), c!] })))).toEqual([]);
  });

  it("a pet that is not Ready goes at once", () => {
    const [a, b] = at(v1, [0, 1]);
    const [c] = at(v1, [2], { ready: false });
    expect(moves(plan(p({ pods: [a!, b!, asked(c!)] })))).toEqual(["delete web-2 (replace)"]);
  });

  it("two asked pets with maxUnavailable 1: one at a time, highest first", () => {
    const [a, b, c] = at(v1, [0, 1, 2]);
    expect(moves(plan(p({ pods: [asked(a!), b!, asked(c!)] })))).toEqual(["delete web-2 (replace)"]);
  });

  it("goes while paused (not a move between versions)", () => {
    const [a, b, c] = at(v1, [0, 1, 2]);
    expect(moves(plan(p({ spec: { paused: true }, pods: [a!, asked(b!), c!] })))).toEqual([
      "delete web-1 (replace)",
    ]);
  });

  it("--claims recreate deletes the claims first, the pod once none is left", () => {
    const withClaims = {
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }],
    };
    const [a, b, c] = at(v1, [0, 1, 2]);
    const claim = (o: number) => ({
      name: claimName("data", "web", o),
      uid: `c${o}`,
      resourceVersion: "1",
      labels: {},
    });
    const version = { ...v1, spec: { ...v1.spec, ...withClaims } } as typeof v1;
    const pods = [a!, asked(b!, "recreate"), c!];
    const first = plan(p({ spec: withClaims, versions: [version], pods, claims: [0, 1, 2].map(claim) }));
    expect(moves(first)).toEqual(["deleteClaim data-web-1 (replace)"]);
    const second = plan(p({ spec: withClaims, versions: [version], pods, claims: [claim(0), claim(2)] }));
    expect(moves(second)).toEqual(["delete web-1 (replace)"]);
  });

  it("a request on a pet below the partition keeps it at its version", () => {
    const pods = [...at(v1, [0, 1], { targetVersion: 2 }), ...at(v2, [2])];
    const spec = { updateStrategy: { type: "RollingUpdate" as const, rollingUpdate: { partition: 2 } } };
    const first = plan(
      p({
        spec,
        versions: [v1, v2],
        status: { currentVersion: 1 },
        pods: [pods[0]!, asked(pods[1]!), pods[2]!],
      }),
    );
    expect(moves(first)).toEqual(["delete web-1 (replace)"]);
    const second = plan(
      p({ spec, versions: [v1, v2], status: { currentVersion: 1 }, pods: [pods[0]!, pods[2]!] }),
    );
    expect(moves(second)).toEqual(["create web-1@v1"]);
  });
});

describe("issue 28: targeted replacement within the budget (property-test finding)", () => {
  // Found by reserve-ordinals-properties.test.ts (seed 20261205, path 107:0:1:1:1:2): a pet whose
  // claims were already deleted for `--claims recreate` was deleted regardless of the budget,
  // in the pass a rolling update took another pet down (2 unavailable with maxUnavailable 1,
  // and under OrderedReady a pet created before a lower one was available).
  it("a recreate whose claims are gone waits while a rolling update holds the only slot", () => {
    const withClaims = {
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }],
    };
    const old = { ...v1, spec: { ...v1.spec, ...withClaims } } as typeof v1;
    const next = { ...v2, spec: { ...v2.spec, ...withClaims } } as typeof v2;
    const [a, b] = at(old, [0, 1], { targetVersion: 2 });
    const claim = { name: claimName("data", "web", 1), uid: "c1", resourceVersion: "1", labels: {} };
    const result = plan({
      spec: { replicas: 2, ...withClaims },
      versions: [old, next],
      status: { currentVersion: 1 },
      pods: [asked(a!, "recreate"), b!],
      claims: [claim],
    });
    expect(moves(result)).toEqual(["delete web-1 (update)"]);
  });
});

describe("issue 28: targeted replacement through its hooks (simulated)", () => {
  it("keep: preUpdate runs, the pod is recreated with a new uid, no new version", () => {
    const world = createWorld(makePetSet({ replicas: 3, lifecycle: { preUpdate: hookSpec() } }));
    const hw = withHooks(world);
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    const uid = ask(world, 1, "keep");
    for (let t = 0; t < 30; t++) {
      hookSync(hw);
      tick(world);
    }
    const pod = podsOf(world).find((x) => x.name === "web-1");
    expect(pod?.uid).not.toBe(uid);
    expect(pod?.annotations[Annotations.replace]).toBeUndefined();
    expect(allRecords(world).map((r) => `${r.hook} ${r.pod} ${r.phase}`)).toEqual([
      "preUpdate web-1 Succeeded",
    ]);
    expect(world.versions).toHaveLength(1);
    expect(hw.violations).toEqual([]);
    expect(world.violations).toEqual([]);
  });

  it("recreate: preScaleDown runs, then the claim and the pod are rebuilt", () => {
    const world = createWorld(
      makePetSet({
        replicas: 2,
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }],
        lifecycle: { preScaleDown: hookSpec() },
      }),
    );
    const hw = withHooks(world);
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    const claimBefore = world.claims.get("data-web-1")?.uid;
    ask(world, 1, "recreate");
    for (let t = 0; t < 30; t++) {
      hookSync(hw);
      tick(world);
    }
    expect(world.claims.get("data-web-1")?.uid).toBeDefined();
    expect(world.claims.get("data-web-1")?.uid).not.toBe(claimBefore);
    expect(podsOf(world).map((x) => `${x.name} ${x.ready}`)).toEqual(["web-0 true", "web-1 true"]);
    expect(allRecords(world).map((r) => `${r.hook} ${r.pod} ${r.phase}`)).toEqual([
      "preScaleDown web-1 Succeeded",
    ]);
    expect(hw.violations).toEqual([]);
    expect(world.violations).toEqual([]);
  });

  it("issue 26: replace --claims recreate runs preUpdate, then preScaleDown, then deletes the claims, then the pod", () => {
    const world = createWorld(
      makePetSet({
        replicas: 2,
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }],
        lifecycle: { preUpdate: hookSpec(), preScaleDown: hookSpec() },
      }),
    );
    const hw = withHooks(world, { ticks: 2 });
    expect(runUntilConverged(world)).toBeGreaterThanOrEqual(0);
    const claimBefore = world.claims.get("data-web-1")?.uid;
    ask(world, 1, "recreate");
    // Every pass is a fresh plan over the world's data (records, claims, pods): what a restarted
    // controller sees. The timeline interleaves the plan's steps with the runner's starts and ends.
    const timeline: string[] = [];
    for (let t = 0; t < 40; t++) {
      const [started, finished] = [hw.started.length, hw.finished.length];
      const result = hookSync(hw);
      for (const s of result.steps) {
        if (s.kind === "deleteClaim") timeline.push(`deleteClaim ${s.claimName}`);
        if (s.kind === "deletePod") timeline.push(`deletePod ${s.podName} (${s.reason})`);
      }
      timeline.push(...hw.started.slice(started).map((x) => `start ${x}`));
      timeline.push(...hw.finished.slice(finished).map((x) => `end ${x}`));
      tick(world);
    }
    expect(timeline).toEqual([
      "start preUpdate web-1 v1",
      "end preUpdate web-1 v1 succeed",
      "start preScaleDown web-1 v1",
      "end preScaleDown web-1 v1 succeed",
      "deleteClaim data-web-1",
      "deletePod web-1 (replace)",
    ]);
    expect(world.claims.get("data-web-1")?.uid).not.toBe(claimBefore);
    expect(podsOf(world).map((x) => `${x.name} ${x.ready}`)).toEqual(["web-0 true", "web-1 true"]);
    expect(allRecords(world).map((r) => `${r.id.split(".").slice(0, 4).join(".")} ${r.phase}`)).toEqual([
      "preUpdate.web.replace.1 Succeeded",
      "preScaleDown.web.replace.1 Succeeded",
    ]);
    expect(hw.violations).toEqual([]);
    expect(world.violations).toEqual([]);
  });
});
