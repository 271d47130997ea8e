/**
 * The soak's verdict fed planted samples (issue 24, "Harnesses that can fail"): memory, fds
 * or watches that grow, a failed change, a PetSet that never converged; each must fail the
 * run, while a flat hour passes. The soak itself is not run here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type JudgedSoak, petSetGap, soakVerdict } from "../../soak/soak-verdict.js";

const MIN = 60_000;

/** An hour sampled every 15 s; `grow` adds per-hour growth to chosen series. */
function hour(
  grow: { serverRss?: number; controllerRss?: number; fds?: number; watches?: number } = {},
): JudgedSoak {
  const samples: JudgedSoak["samples"] = [];
  for (let t = 0; t <= 60 * MIN; t += 15_000) {
    const h = t / (60 * MIN);
    const wobble = (t / 15_000) % 2 === 0 ? 4096 : -4096; // a flat series still swings
    samples.push({
      t,
      server: {
        rssKiB: 300_000 + wobble + h * (grow.serverRss ?? 0),
        fds: 80 + Math.round(h * (grow.fds ?? 0)),
      },
      controller: { rssKiB: 200_000 - wobble + h * (grow.controllerRss ?? 0), fds: 26 },
      watches: 47 + Math.round(h * (grow.watches ?? 0)),
      stored: {},
    });
  }
  return { crashed: [], violations: [], changeErrors: [], notConverged: [], samples };
}

describe("soak verdict", () => {
  it("passes a flat hour with no errors", () => {
    expect(soakVerdict(hour())).toEqual({ problems: [], notes: [] });
  });

  it("fails on memory growth in either process, on an fd leak and on a watch leak", () => {
    const problems = (g: Parameters<typeof hour>[0]) =>
      soakVerdict(hour(g)).problems.map((p) => p.split(" grows")[0]);
    expect(problems({ serverRss: 100 * 1024 })).toEqual(["server RSS"]);
    expect(problems({ controllerRss: 60 * 1024 })).toEqual(["controller RSS"]);
    expect(problems({ fds: 200 })).toEqual(["server open fds"]);
    expect(problems({ watches: 40 })).toEqual(["server open watches"]);
  });

  it("fails on a failed change, a PetSet not converged, a crash and a violation", () => {
    const r = {
      ...hour(),
      changeErrors: ["soak-3: 500 boom"],
      notConverged: ["soak-7: 1 ready, 0 updated of 2"],
      crashed: ["controller exited (1)"],
      violations: [{ rule: "versions", message: "3 live", at: "t" }],
    } as JudgedSoak;
    expect(soakVerdict(r).problems).toEqual([
      "crash: controller exited (1)",
      "violation versions: 3 live",
      "change failed: soak-3: 500 boom",
      "not converged: soak-7: 1 ready, 0 updated of 2",
    ]);
  });

  it("passes the recorded hours (2026-12-01 after its fixes' second half, 2026-12-02): the limits are not tighter than a healthy run", () => {
    for (const day of ["2026-12-01", "2026-12-02"]) {
      const url = new URL(`../../soak/results/soak-60min-100ps-${day}.json`, import.meta.url);
      const recorded = JSON.parse(readFileSync(url, "utf8")) as JudgedSoak;
      expect(soakVerdict({ ...recorded, violations: [], notConverged: [] }).problems).toEqual([]);
    }
  });

  it("does not judge slopes on a second half too short to tell growth from noise, and says so", () => {
    const short = {
      ...hour({ serverRss: 500 * 1024 }),
      samples: hour({ serverRss: 500 * 1024 }).samples.slice(0, 20),
    };
    const v = soakVerdict(short);
    expect(v.problems).toEqual([]);
    expect(v.notes[0]).toMatch(/^slopes not judged/);
  });
});

describe("soak convergence of one PetSet", () => {
  const done = {
    metadata: { name: "soak-1", generation: 4 },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 4,
      readyReplicas: 2,
      updatedReplicas: 2,
      currentVersion: 3,
      updateVersion: 3,
      conditions: [{ type: "Progressing", status: "True", reason: "RolloutComplete" }],
    },
  };

  it("passes a finished rollout and reports one still moving", () => {
    expect(petSetGap(done)).toBeUndefined();
    expect(petSetGap({ ...done, status: { ...done.status, updatedReplicas: 1, updateVersion: 4 } })).toBe(
      "soak-1: 2 ready, 1 updated of 2, current v3 update v4",
    );
    expect(petSetGap({ ...done, metadata: { name: "soak-1", generation: 5 } })).toBe(
      "soak-1: observedGeneration 4 of 5",
    );
    // Scaled to zero after an image change: no pet to move, current stays behind update.
    const zero = {
      ...done,
      spec: { replicas: 0 },
      status: { ...done.status, readyReplicas: 0, updatedReplicas: 0, updateVersion: 4 },
    };
    expect(petSetGap(zero)).toBeUndefined();
  });
});
