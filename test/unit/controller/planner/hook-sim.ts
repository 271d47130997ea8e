/**
 * Hooks in the pure world of simulate.ts: a hook runner that finishes Running records after
 * a scripted number of ticks with a scripted result, and the hook invariants checked after
 * every sync: no pod moves or goes without its hook done, at most maxUnavailable pets in
 * preUpdate at once, nothing moves to a version before its preRollout is done.
 */
import type { HookRecord } from "../../../../src/api/index.js";
import { planRollout, resolveMaxUnavailable, type Step } from "../../../../src/controller/planner/index.js";
import { applyStep, podsOf, tick, type World } from "./simulate.js";

export type HookResult = "succeed" | "fail" | "hang";

export interface HookScript {
  /** Result of a run; default "succeed". */
  result?(record: HookRecord): HookResult;
  /** Ticks a run takes; default 1. */
  ticks?: number;
}

export interface HookWorld {
  world: World;
  script: HookScript;
  /** Runs started, in order: "preUpdate web-2 v2" ... */
  started: string[];
  finished: string[];
  /** When each run (id#attempt) was first seen Running. */
  seenAt: Map<string, number>;
  violations: string[];
}

export const hookSpec = (handler: "exec" | "external" = "external", extra: Record<string, unknown> = {}) => ({
  ...(handler === "exec" ? { exec: { command: ["true"] } } : { external: {} }),
  timeoutSeconds: 30,
  ...extra,
});

export function withHooks(world: World, script: HookScript = {}): HookWorld {
  return { world, script, started: [], finished: [], seenAt: new Map(), violations: [] };
}

function label(r: HookRecord): string {
  return `${r.hook}${r.pod !== undefined ? ` ${r.pod}` : ""} v${r.toVersion ?? r.fromVersion ?? "?"}`;
}

/** Every hook record on the world's versions. */
export function allRecords(world: World): HookRecord[] {
  return world.versions.flatMap((v) => v.status?.hooks ?? []);
}

function recordOf(world: World, hook: string, podName: string | undefined): HookRecord | undefined {
  return allRecords(world)
    .filter((r) => r.hook === hook && (podName === undefined || r.pod === podName))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
}

const done = (r: HookRecord | undefined) =>
  r !== undefined && (r.phase === "Succeeded" || (r.phase === "Failed" && r.outcome === "Ignored"));

function checkStep(hw: HookWorld, step: Step): void {
  const { world } = hw;
  const lifecycle = world.petSet.spec.lifecycle;
  const v = (msg: string) => hw.violations.push(`t=${world.now} ${step.kind}: ${msg}`);
  if ((step.kind === "deletePod" && step.reason === "update") || step.kind === "patchPodImages") {
    const pod = world.pods.get(step.podName)?.view;
    if (
      lifecycle?.preUpdate !== undefined &&
      pod?.ready === true &&
      !done(recordOf(world, "preUpdate", step.podName))
    )
      v(`${step.podName} moved without its preUpdate hook done`);
  }
  if (step.kind === "deletePod" && step.reason === "scale-down") {
    if (lifecycle?.preScaleDown !== undefined && !done(recordOf(world, "preScaleDown", step.podName)))
      v(`${step.podName} scaled down without its preScaleDown hook done`);
  }
}

function checkAfterSync(hw: HookWorld): void {
  const { world } = hw;
  const spec = world.petSet.spec;
  const max = resolveMaxUnavailable(spec.updateStrategy.rollingUpdate?.maxUnavailable ?? 1, spec.replicas);
  const inPreUpdate = allRecords(world).filter((r) => r.hook === "preUpdate" && r.phase === "Running");
  if (inPreUpdate.length > max)
    hw.violations.push(`t=${world.now}: ${inPreUpdate.length} pets in preUpdate > maxUnavailable ${max}`);
}

/** One sync with the hook invariants, then the simulated runner acts on Running records. */
export function hookSync(hw: HookWorld) {
  const { world } = hw;
  const plan = planRollout({
    petSet: world.petSet,
    versions: world.versions,
    pods: podsOf(world),
    claims: [...world.claims.values()],
    now: world.now,
    ...(world.drivingSince !== undefined ? { drivingSince: world.drivingSince } : {}),
  });
  for (const step of plan.steps) {
    checkStep(hw, step);
    applyStep(world, step);
  }
  world.petSet = { ...world.petSet, status: plan.status };
  checkAfterSync(hw);
  runHooks(hw);
  return plan;
}

/** The simulated runner: finishes Running records after `ticks` ticks with the scripted result. */
export function runHooks(hw: HookWorld): void {
  const { world, script } = hw;
  for (let i = 0; i < world.versions.length; i++) {
    const version = world.versions[i];
    if (version === undefined) continue;
    const hooks = version.status?.hooks ?? [];
    let changed = false;
    const next = hooks.map((r) => {
      if (r.phase !== "Running") return r;
      const key = `${r.id}#${r.attempts}`;
      const seen = hw.seenAt.get(key);
      if (seen === undefined) {
        hw.seenAt.set(key, world.now);
        hw.started.push(label(r));
        return r;
      }
      const result = script.result?.(r) ?? "succeed";
      if (result === "hang" || world.now - seen < (script.ticks ?? 1) * world.options.tickMs) return r;
      changed = true;
      hw.finished.push(`${label(r)} ${result}`);
      return result === "succeed"
        ? { ...r, phase: "Succeeded" as const, finishedAt: new Date(world.now).toISOString() }
        : {
            ...r,
            phase: "Failed" as const,
            failures: r.failures + 1,
            message: "scripted failure",
            finishedAt: new Date(world.now).toISOString(),
          };
    });
    if (!changed) continue;
    world.serial++;
    world.versions[i] = {
      ...version,
      metadata: { ...version.metadata, resourceVersion: String(world.serial) },
      status: { ...(version.status ?? {}), hooks: next },
    };
  }
}

/** Sync and tick until `until` holds; returns the ticks used, or -1. */
export function runHookWorld(hw: HookWorld, until: (hw: HookWorld) => boolean, maxTicks = 300): number {
  for (let t = 0; t < maxTicks; t++) {
    hookSync(hw);
    if (until(hw)) return t;
    tick(hw.world);
  }
  return -1;
}
