/** The embedded job controller's decisions, table-style: pods and time in, status and actions out. */
import { describe, expect, it } from "vitest";
import { type JobPod, planJob } from "../../../src/apiserver-shim/controllers/job-status.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const at = (s: number) => T0 + s * 1000;
const iso = (s: number) => `${new Date(at(s)).toISOString().slice(0, 19)}Z`;

function job(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "migrate", namespace: "ns", uid: "u1" },
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } },
      ...spec,
    },
    status,
  };
}

const pod = (name: string, phase: string, extra: Partial<JobPod> = {}): JobPod => ({
  name,
  phase,
  deleting: false,
  ready: phase === "Running",
  restarts: 0,
  ...extra,
});

const cond = (type: string, reason: string, s = 0) => ({
  type,
  status: "True",
  reason,
  lastProbeTime: iso(s),
  lastTransitionTime: iso(s),
});
const types = (status: Record<string, unknown>) =>
  ((status.conditions ?? []) as { type: string; reason?: string }[]).map((c) => `${c.type}/${c.reason}`);

describe("planJob", () => {
  const cases: {
    name: string;
    job: KubeObject;
    pods: JobPod[];
    now?: number;
    create?: number;
    delete?: string[];
    conditions?: string[];
    counts?: { active?: number; succeeded?: number; failed?: number; terminating?: number };
    requeueAfterMs?: number;
  }[] = [
    {
      name: "a new Job creates one pod and starts",
      job: job(),
      pods: [],
      create: 1,
      conditions: [],
      counts: { active: 1, terminating: 0 },
    },
    {
      name: "parallelism 3, completions 5, 3 succeeded: 2 more",
      job: job({ parallelism: 3, completions: 5 }, { startTime: iso(0) }),
      pods: [pod("a", "Succeeded"), pod("b", "Succeeded"), pod("c", "Succeeded")],
      create: 2,
      counts: { active: 2, succeeded: 3 },
    },
    {
      name: "succeeded pod: SuccessCriteriaMet and Complete in one pass when nothing runs",
      job: job({}, { startTime: iso(0) }),
      pods: [pod("a", "Succeeded")],
      conditions: ["SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached"],
      counts: { succeeded: 1, terminating: 0 },
    },
    {
      name: "a failure within backoffLimit is replaced",
      job: job({ backoffLimit: 1 }, { startTime: iso(0) }),
      pods: [pod("a", "Failed")],
      create: 1,
      conditions: [],
      counts: { active: 1, failed: 1 },
    },
    {
      name: "failures past backoffLimit: FailureTarget then Failed",
      job: job({ backoffLimit: 1 }, { startTime: iso(0) }),
      pods: [pod("a", "Failed"), pod("b", "Failed")],
      conditions: ["FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded"],
      counts: { failed: 2 },
    },
    {
      name: "deadline passed: running pod deleted, only FailureTarget until it is gone",
      job: job({ activeDeadlineSeconds: 2 }, { startTime: iso(0) }),
      pods: [pod("a", "Running")],
      now: at(3),
      delete: ["a"],
      conditions: ["FailureTarget/DeadlineExceeded"],
      counts: { terminating: 1 },
    },
    {
      name: "FailureTarget and nothing terminating: Failed",
      job: job(
        { activeDeadlineSeconds: 2 },
        { startTime: iso(0), conditions: [cond("FailureTarget", "DeadlineExceeded", 3)] },
      ),
      pods: [],
      now: at(4),
      conditions: ["FailureTarget/DeadlineExceeded", "Failed/DeadlineExceeded"],
    },
    {
      name: "deadline pending: look again when it is due",
      job: job({ activeDeadlineSeconds: 10 }, { startTime: iso(0) }),
      pods: [pod("a", "Running")],
      now: at(4),
      requeueAfterMs: 6000,
      counts: { active: 1 },
    },
    {
      name: "OnFailure: restarts count against backoffLimit",
      job: job({
        backoffLimit: 2,
        template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "i" }] } },
      }),
      pods: [pod("a", "Running", { restarts: 2 })],
      delete: ["a"],
      conditions: ["FailureTarget/BackoffLimitExceeded"],
    },
    {
      name: "suspended: no pods",
      job: job({ suspend: true }),
      pods: [],
      create: 0,
    },
    {
      name: "a deleted pod's count is not lost (counters never go down)",
      job: job({ backoffLimit: 6 }, { startTime: iso(0), failed: 2 }),
      pods: [pod("c", "Failed")],
      create: 1,
      counts: { failed: 2 },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const plan = planJob(c.job, c.pods, c.now ?? at(1));
      expect(plan.create).toBe(c.create ?? 0);
      expect(plan.delete).toEqual(c.delete ?? []);
      if (c.conditions) expect(types(plan.status)).toEqual(c.conditions);
      if (c.counts) expect(plan.status).toMatchObject(c.counts);
      expect(plan.requeueAfterMs).toBe(c.requeueAfterMs);
      expect(plan.deleteJob).toBe(false);
    });

  it("sets startTime once and completionTime on Complete", () => {
    const first = planJob(job(), [], at(1));
    expect(first.status.startTime).toBe(iso(1));
    const done = planJob(job({}, first.status), [pod("a", "Succeeded")], at(5));
    expect(done.status.startTime).toBe(iso(1));
    expect(done.status.completionTime).toBe(iso(5));
  });

  it("deletes a finished Job once ttlSecondsAfterFinished passed", () => {
    const finished = job(
      { ttlSecondsAfterFinished: 5 },
      { completionTime: iso(10), conditions: [cond("Complete", "CompletionsReached", 10)] },
    );
    expect(planJob(finished, [], at(12))).toMatchObject({
      deleteJob: false,
      requeueAfterMs: 3000,
      create: 0,
    });
    expect(planJob(finished, [], at(15)).deleteJob).toBe(true);
    expect(planJob(job({}, finished.status as Record<string, unknown>), [], at(99)).deleteJob).toBe(false);
  });
});
