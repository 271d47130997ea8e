/**
 * Broken pets (planner/broken-pets.ts, issue 31 item 2): which pets of the target version the
 * PetSet names, from pod data and an injected clock; then through planRollout, the Progressing
 * message and the Warning as a user reads them.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { parseBrokenPets } from "../../../../src/api/broken-pet-message.js";
import { ProgressingReasons } from "../../../../src/api/index.js";
import { findBrokenPets } from "../../../../src/controller/planner/broken-pets.js";
import { type PodView, podViewFromV1Pod } from "../../../../src/controller/planner/views.js";
import { makePod, type PodOptions } from "./fixtures.js";
import { NOW, plan, progressing, v1, v2 } from "./plan-helpers.js";

const settledV1 = { currentVersion: 1, updateVersion: 2, lastCompleteVersion: 1 };

const DEADLINE_MS = 600_000;

interface PodCase extends PodOptions {
  ordinal: number;
  version?: 1 | 2;
  restarts?: number;
  notReadySince?: number;
  restartedAfterBackOff?: boolean;
  containers?: PodView["containers"];
}

function pod(c: PodCase): PodView {
  const p = makePod(c.ordinal, c.version === 1 ? v1 : v2, c);
  p.restartCount = c.restarts ?? 0;
  if (c.notReadySince !== undefined) p.notReadySince = c.notReadySince;
  if (c.restartedAfterBackOff) p.restartedAfterBackOff = true;
  if (c.containers !== undefined) p.containers = c.containers;
  return p;
}

const ready = (ordinal: number, startMs = 1000, version: 1 | 2 = 1): PodCase => ({
  ordinal,
  version,
  createdAt: NOW - 3_600_000,
  readySince: NOW - 3_600_000 + startMs,
});

interface Case {
  name: string;
  pods: PodCase[];
  previousMessage?: string;
  named: string[];
  more?: number;
  fresh?: string[];
  limitS?: number;
  wakeInS?: number[];
}

const cases: Case[] = [
  {
    name: "a crash-looping pet of the target version is named with its restarts",
    pods: [
      ready(0),
      ready(1),
      { ordinal: 2, ready: false, phase: "Running", failing: "CrashLoopBackOff", restarts: 13 },
    ],
    named: ["web-2: CrashLoopBackOff, 13 restarts, at version 2"],
    fresh: ["web-2"],
  },
  {
    name: "already named in the stored message: named again, no second Warning",
    pods: [
      ready(0),
      ready(1),
      { ordinal: 2, ready: false, phase: "Running", failing: "CrashLoopBackOff", restarts: 14 },
    ],
    previousMessage:
      "PetSet web: 1 of 3 pets at version 2; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 2",
    named: ["web-2: CrashLoopBackOff, 14 restarts, at version 2"],
    fresh: [],
  },
  {
    name: "running again after a crash-loop back-off is still crash-looping",
    pods: [{ ordinal: 2, ready: false, phase: "Running", restarts: 3, restartedAfterBackOff: true }],
    named: ["web-2: CrashLoopBackOff, 3 restarts, at version 2"],
  },
  {
    name: "an image that cannot be pulled, no restarts",
    pods: [{ ordinal: 1, ready: false, failing: "ImagePullBackOff" }],
    named: ["web-1: ImagePullBackOff, at version 2"],
  },
  {
    name: "a Failed pod",
    pods: [{ ordinal: 0, ready: false, phase: "Failed", restarts: 1 }],
    named: ["web-0: Failed, 1 restart, at version 2"],
  },
  {
    name: "a pet of another version is not the rollout's: not named",
    pods: [
      { ordinal: 2, version: 1, ready: false, phase: "Running", failing: "CrashLoopBackOff", restarts: 5 },
    ],
    named: [],
  },
  {
    name: "a terminating pod is not named",
    pods: [
      { ordinal: 2, ready: false, terminating: true, failing: "CrashLoopBackOff", createdAt: NOW - 5000 },
    ],
    named: [],
  },
  {
    name: "an in-place restart (no back-off) is not a crash loop: judged by the unready limit",
    pods: [{ ordinal: 2, ready: false, phase: "Running", restarts: 1, notReadySince: NOW - 2000 }],
    named: [],
    wakeInS: [28],
  },
  {
    name: "not Ready for less than the limit (30 s with no start to compare): woken at it",
    pods: [{ ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 20_000 }],
    named: [],
    limitS: 30,
    wakeInS: [10],
  },
  {
    name: "not Ready for the 30 s floor",
    pods: [{ ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 31_000 }],
    named: ["web-2: not Ready for 31s (limit 30s), at version 2"],
  },
  {
    name: "twice the slowest recent start (40 s) is the limit: 50 s unready is fine",
    pods: [
      ready(0, 40_000),
      ready(1, 5_000),
      { ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 50_000 },
    ],
    named: [],
    limitS: 80,
    wakeInS: [30],
  },
  {
    name: "twice the slowest recent start (40 s) is the limit: 81 s unready is named",
    pods: [ready(0, 40_000), { ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 81_000 }],
    named: ["web-2: not Ready for 81s (limit 80s), at version 2"],
  },
  {
    name: "a pod that restarted does not stretch the limit (its Ready time is not its start)",
    pods: [
      { ...ready(0, 3_000_000), restarts: 1 },
      { ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 31_000 },
    ],
    named: ["web-2: not Ready for 31s (limit 30s), at version 2"],
  },
  {
    name: "the limit is at most the progress deadline",
    pods: [ready(0, 3_000_000)],
    named: [],
    limitS: 600,
  },
  {
    name: "not Ready since its Ready condition turned, not since creation",
    pods: [
      { ordinal: 2, ready: false, phase: "Running", createdAt: NOW - 3_600_000, notReadySince: NOW - 5000 },
    ],
    named: [],
    wakeInS: [25],
  },
  {
    name: "a Ready pod whose in-place image change the kubelet has not acted on is not judged",
    pods: [
      {
        ordinal: 2,
        createdAt: NOW - 3_600_000,
        containers: [{ name: "app", image: "app:2", runningImage: "app:1" }],
      },
    ],
    named: [],
  },
  {
    name: "at most three named, lowest ordinal first, the rest counted",
    pods: [3, 1, 0, 2].map((o) => ({ ordinal: o, ready: false, failing: "ErrImagePull" })),
    named: [
      "web-0: ErrImagePull, at version 2",
      "web-1: ErrImagePull, at version 2",
      "web-2: ErrImagePull, at version 2",
    ],
    more: 1,
  },
];

describe("broken pets (findBrokenPets)", () => {
  for (const c of cases) {
    it(`issue 31 item 2: ${c.name}`, () => {
      const r = findBrokenPets({
        pods: c.pods.map(pod),
        atTarget: (p) => p.hash === v2.spec.hash,
        targetVersion: 2,
        deadlineMs: DEADLINE_MS,
        now: NOW,
        previousMessage: c.previousMessage,
      });
      expect(r.named.map((p) => `${p.pet}: ${p.problem}`)).toEqual(c.named);
      expect(r.more).toBe(c.more ?? 0);
      if (c.fresh !== undefined) expect(r.fresh.map((p) => p.pet)).toEqual(c.fresh);
      if (c.limitS !== undefined) expect(r.unreadyLimitMs).toBe(c.limitS * 1000);
      if (c.wakeInS !== undefined) expect(r.wakeAt.map((t) => (t - NOW) / 1000)).toEqual(c.wakeInS);
    });
  }
});

describe("broken pets through planRollout", () => {
  const crashing = () => [
    makePod(0, v1, { targetVersion: 2 }),
    makePod(1, v1, { targetVersion: 2 }),
    pod({
      ordinal: 2,
      ready: false,
      phase: "Running",
      failing: "CrashLoopBackOff",
      restarts: 13,
      createdAt: NOW - 5000,
      targetVersion: 2,
    }),
  ];

  it("issue 31 item 2: a crash-looping pet is named in Progressing at once, with one Warning", () => {
    const p = plan({ versions: [v1, v2], status: { ...settledV1, updateVersion: 2 }, pods: crashing() });
    const cond = progressing(p);
    expect(cond?.reason).toBe(ProgressingReasons.rollingOut);
    expect(cond?.message).toContain("; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 2");
    const warnings = p.events.filter((e) => e.reason === "BrokenPet");
    expect(warnings).toEqual([
      {
        type: "Warning",
        reason: "BrokenPet",
        object: "petset",
        message:
          "PetSet web: pet web-2 is broken at version 2: CrashLoopBackOff; kubectl petset rollback web goes back, kubectl petset set image web rolls out a fix, or the rollout fails after 600s without progress (spec.progressDeadlineSeconds)",
      },
    ]);
    // The next sync reads the stored condition: the pet is named, not warned about again.
    const again = plan({
      versions: [v1, v2],
      status: { ...settledV1, updateVersion: 2, conditions: [cond as NonNullable<typeof cond>] },
      pods: crashing(),
      now: NOW + 2000,
    });
    expect(progressing(again)?.message).toContain("broken pet web-2: CrashLoopBackOff");
    expect(again.events.filter((e) => e.reason === "BrokenPet")).toEqual([]);
  });

  it("issue 31 item 2: the deadline's message names the broken pet too (deadline unchanged)", () => {
    const p = plan({
      versions: [v1, v2],
      status: { ...settledV1, updateVersion: 2 },
      pods: crashing(),
      spec: { progressDeadlineSeconds: 1 },
      now: NOW + 10_000,
    });
    const cond = progressing(p);
    expect(cond?.reason).toBe(ProgressingReasons.progressDeadlineExceeded);
    expect(parseBrokenPets(cond?.message).named).toEqual([
      { pet: "web-2", problem: "CrashLoopBackOff, 13 restarts, at version 2" },
    ]);
  });

  it("issue 31 item 2: a healthy rollout names no pet and sends no Warning", () => {
    const pods = [
      makePod(0, v1),
      makePod(1, v1),
      makePod(2, v2, { createdAt: NOW - 1000, targetVersion: 2 }),
    ];
    const p = plan({ versions: [v1, v2], status: { ...settledV1, updateVersion: 2 }, pods });
    expect(progressing(p)?.message).not.toContain("broken");
    expect(p.events.some((e) => e.reason === "BrokenPet")).toBe(false);
  });
});

describe("pod view: what broken-pets reads", () => {
  const base = (containerStatus: Record<string, unknown>, readyCondition: Record<string, unknown>): V1Pod =>
    ({
      metadata: { name: "web-2", uid: "u", creationTimestamp: new Date(NOW - 60_000) },
      spec: { containers: [{ name: "app", image: "app:2" }] },
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", ...readyCondition }],
        containerStatuses: [{ name: "app", image: "app:2", imageID: "", ready: false, ...containerStatus }],
      },
    }) as unknown as V1Pod;

  it("issue 31 item 2: a container running again 10 s after its crash ran after a back-off", () => {
    const view = podViewFromV1Pod(
      base(
        {
          restartCount: 2,
          state: { running: { startedAt: new Date(NOW - 1000) } },
          lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: new Date(NOW - 11_000) } },
        },
        { status: "False", lastTransitionTime: new Date(NOW - 30_000) },
      ),
    );
    expect(view.restartedAfterBackOff).toBe(true);
    expect(view.notReadySince).toBe(NOW - 30_000);
  });

  it("issue 31 item 2: an in-place restart (at once) did not back off", () => {
    const view = podViewFromV1Pod(
      base(
        {
          restartCount: 1,
          state: { running: { startedAt: new Date(NOW - 1000) } },
          lastState: { terminated: { exitCode: 143, reason: "Error", finishedAt: new Date(NOW - 1000) } },
        },
        { status: "False", lastTransitionTime: new Date(NOW - 1000) },
      ),
    );
    expect(view.restartedAfterBackOff).toBeUndefined();
  });
});
