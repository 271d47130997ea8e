/**
 * What a soak run must show to pass, as a pure function over its result (unit-tested with
 * planted samples: test/unit/soak/soak-verdict.test.ts; the soak itself is not run there):
 * - no crash, no invariant violation, no failed change;
 * - every PetSet converged after the changes stopped (`notConverged` empty);
 * - nothing grows without bound: over the second half of the samples (history and caches
 *   fill in the first half), the least-squares slope per hour of each process's resident
 *   memory, each process's open fds and the server's open watches stays within SOAK_LIMITS.
 *   A second half shorter than `minSpanMs` cannot tell growth from noise: the slopes are then
 *   not judged, and the verdict says so in `notes` (short runs are smoke tests).
 */
import { slopePerHour } from "./process-sampler.js";
import type { SoakResult } from "./soak-run.js";

export interface SoakLimits {
  /** Resident memory, each process, KiB per hour (the hour re-run: server −1.9, controller −10.8 MiB/h). */
  rssKiBPerHour: number;
  /** Open file descriptors, each process, per hour (the first hour: server +21/h with one spike to 178; a leak per change would be thousands). */
  fdsPerHour: number;
  /** Open watches on the server, per hour. */
  watchesPerHour: number;
  /** The second half must span this long for its slopes to be judged. */
  minSpanMs: number;
}

export const SOAK_LIMITS: SoakLimits = {
  rssKiBPerHour: 32 * 1024,
  fdsPerHour: 50,
  watchesPerHour: 5,
  minSpanMs: 10 * 60_000,
};

export type JudgedSoak = Pick<
  SoakResult,
  "crashed" | "violations" | "changeErrors" | "samples" | "notConverged"
>;

export function soakVerdict(
  r: JudgedSoak,
  limits: SoakLimits = SOAK_LIMITS,
): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const c of r.crashed) problems.push(`crash: ${c}`);
  for (const v of r.violations) problems.push(`violation ${v.rule}: ${v.message}`);
  for (const e of r.changeErrors) problems.push(`change failed: ${e}`);
  for (const n of r.notConverged) problems.push(`not converged: ${n}`);
  const half = r.samples.slice(Math.floor(r.samples.length / 2));
  const span = (half.at(-1)?.t ?? 0) - (half[0]?.t ?? 0);
  if (half.length < 3 || span < limits.minSpanMs) {
    notes.push(
      `slopes not judged: the second half spans ${Math.round(span / 1000)} s of ${half.length} samples`,
    );
    return { problems, notes };
  }
  const series: [string, (s: JudgedSoak["samples"][number]) => number, number, string][] = [
    ["server RSS", (s) => s.server.rssKiB, limits.rssKiBPerHour, "KiB"],
    ["controller RSS", (s) => s.controller.rssKiB, limits.rssKiBPerHour, "KiB"],
    ["server open fds", (s) => s.server.fds, limits.fdsPerHour, "fds"],
    ["controller open fds", (s) => s.controller.fds, limits.fdsPerHour, "fds"],
    ["server open watches", (s) => s.watches, limits.watchesPerHour, "watches"],
  ];
  for (const [name, pick, limit, unit] of series) {
    const slope = slopePerHour(half.map((s) => ({ t: s.t, y: pick(s) })));
    if (slope > limit)
      problems.push(
        `${name} grows ${Math.round(slope)} ${unit}/h over the second half (limit ${limit} ${unit}/h)`,
      );
  }
  return { problems, notes };
}

/** The fields of a PetSet the convergence check reads. */
export interface ObservedPetSet {
  metadata?: { name?: string; generation?: number };
  spec?: { replicas?: number; paused?: boolean };
  status?: {
    observedGeneration?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentVersion?: number;
    updateVersion?: number;
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

/**
 * undefined when the PetSet finished its last change: observed, every pet Ready and updated,
 * and (with pets) current = update and the rollout complete.
 */
export function petSetGap(p: ObservedPetSet): string | undefined {
  const s = p.status;
  const replicas = p.spec?.replicas ?? 1;
  const off: string[] = [];
  if (p.spec?.paused) off.push("paused");
  if (s?.observedGeneration !== p.metadata?.generation)
    off.push(`observedGeneration ${s?.observedGeneration} of ${p.metadata?.generation}`);
  if ((s?.readyReplicas ?? 0) !== replicas || (s?.updatedReplicas ?? 0) !== replicas)
    off.push(`${s?.readyReplicas ?? 0} ready, ${s?.updatedReplicas ?? 0} updated of ${replicas}`);
  // With no pets nothing moves: currentVersion stays where the last pet left it (planner status).
  if (replicas > 0) {
    if (s?.currentVersion !== s?.updateVersion)
      off.push(`current v${s?.currentVersion} update v${s?.updateVersion}`);
    const progressing = s?.conditions?.find((c) => c.type === "Progressing");
    if (progressing?.reason !== "RolloutComplete") off.push(`Progressing ${progressing?.reason}`);
  }
  return off.length === 0 ? undefined : `${p.metadata?.name}: ${off.join(", ")}`;
}
