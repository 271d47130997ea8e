import { describe, expect, it } from "vitest";
import { Annotations, Labels } from "../../../src/api/index.js";
import type { PodView } from "../../../src/controller/planner/views.js";
import { petSetEventWake, podEventWake, wakeGiven } from "../../../src/controller/wake-policy.js";
import { makePod, makeVersion } from "./planner/fixtures.js";

const v1 = makeVersion(1, "nginx:1.26");
const v2 = makeVersion(2, "nginx:1.27");

/** The same pod (uid) in a later state. */
const later = (pod: PodView, change: Partial<PodView>): PodView => ({
  ...pod,
  resourceVersion: "2",
  ...change,
});

describe("podEventWake: which pod events sync their PetSet at once (wake-policy.ts)", () => {
  const ready = makePod(0, v1);
  const pending = makePod(0, v2, { ready: false });
  const terminating = later(ready, { deletionTimestamp: 30_000, deletionRequestedAt: 0 });

  const now: [string, PodView | undefined, PodView, "add" | "update" | "delete"][] = [
    ["a pod is gone", ready, ready, "delete"],
    ["a terminating pod is gone", terminating, terminating, "delete"],
    [
      "Ready turns True",
      later(pending, { phase: "Running" }),
      later(pending, { phase: "Running", ready: true, readySince: 5 }),
      "update",
    ],
    ["Ready turns False", ready, later(ready, { ready: false, notReadySince: 5 }), "update"],
    ["the pod Failed", pending, later(pending, { phase: "Failed" }), "update"],
    ["a container starts failing", pending, later(pending, { failing: "CrashLoopBackOff" }), "update"],
    ["a container restarted", pending, later(pending, { restartCount: 1 }), "update"],
    [
      "a Ready pod's containers changed (the kubelet took an in-place image)",
      ready,
      later(ready, { containers: [{ name: "app", image: "nginx:1.27", runningImage: "nginx:1.27" }] }),
      "update",
    ],
    [
      "a Ready pod stops waiting for an in-place update",
      later(ready, { containers: [{ name: "app", image: "nginx:1.27", runningImage: "nginx:1.26" }] }),
      later(ready, { containers: [{ name: "app", image: "nginx:1.27", runningImage: "nginx:1.27" }] }),
      "update",
    ],
    ["a resize is pending", ready, later(ready, { resizePending: { reason: "Deferred" } }), "update"],
    ["a resize is in progress", ready, later(ready, { resizeInProgress: true }), "update"],
    [
      "a user asks for a replacement",
      ready,
      later(ready, { annotations: { [Annotations.replace]: "true" } }),
      "update",
    ],
    [
      "a label changed",
      ready,
      later(ready, { labels: { ...ready.labels, [Labels.version]: "2" } }),
      "update",
    ],
    ["a label was removed", ready, later(ready, { labels: { app: "web" } }), "update"],
    ["another incarnation of the name", ready, { ...ready, uid: "other" }, "update"],
    ["the earlier state is unknown", undefined, ready, "update"],
  ];
  it.each(now)("now: %s", (_what, earlier, pod, kind) => {
    expect(podEventWake(kind, earlier, pod)).toBe("now");
  });

  const soon: [string, PodView | undefined, PodView, "add" | "update" | "delete"][] = [
    ["a pod appears", undefined, pending, "add"],
    ["it is bound to a node", pending, later(pending, { nodeName: "node-1" }), "update"],
    ["it starts terminating", ready, terminating, "update"],
    [
      "a terminating pod turns not Ready",
      terminating,
      later(terminating, { ready: false, phase: "Running" }),
      "update",
    ],
    ["a terminating pod Failed", terminating, later(terminating, { phase: "Failed" }), "update"],
    [
      "the controller's own target-version announcement",
      ready,
      later(ready, { annotations: { [Annotations.targetVersion]: "2" }, targetVersion: 2 }),
      "update",
    ],
    ["nothing the planner reads (a new resourceVersion)", ready, later(ready, {}), "update"],
  ];
  it.each(soon)("soon: %s", (_what, earlier, pod, kind) => {
    expect(podEventWake(kind, earlier, pod)).toBe("soon");
  });

  it("a phase change wakes at once; a not-Ready pod's containers reported again do not", () => {
    // The phase decides recreation (Failed, Succeeded), so any change of it wakes at once.
    const running = later(pending, {
      phase: "Running",
      containers: [{ name: "app", image: "nginx:1.27", runningImage: "nginx:1.27" }],
    });
    expect(podEventWake("update", pending, running)).toBe("now");
    // The same containers reported again on a not-Ready pod, phase unchanged: soon.
    expect(podEventWake("update", running, later(running, { nodeName: "n" }))).toBe("soon");
  });
});

describe("petSetEventWake and wakeGiven: the PetSet's echo, and the caller's overrides", () => {
  it("only the echo of the controller's own status write waits, never a spec it has not seen", () => {
    expect(petSetEventWake("update", false, true)).toBe("soon");
    expect(petSetEventWake("update", true, true)).toBe("now");
    expect(petSetEventWake("update", false, false)).toBe("now");
    expect(petSetEventWake("delete", false, true)).toBe("now");
  });

  it("wakes at once before the workers run and while the last sync waited for its expectations", () => {
    const asked: string[] = [];
    const soon = () => {
      asked.push("rule");
      return "soon" as const;
    };
    expect(wakeGiven({ running: true, parked: false }, soon)).toBe("soon");
    expect(wakeGiven({ running: true, parked: true }, soon)).toBe("now");
    expect(wakeGiven({ running: false, parked: false }, soon)).toBe("now");
    // The rule (which builds pod views) is asked only when it decides.
    expect(asked).toEqual(["rule"]);
  });
});
