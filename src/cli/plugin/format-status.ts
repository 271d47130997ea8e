import { brokenPetsSuffix } from "../../api/broken-pet-message.js";
import type { RolloutState } from "./rollout-state.js";

/**
 * Human lines for `kubectl petset status`. Plain lines are printed when they change (logs,
 * CI); on a terminal the same facts become one progress line redrawn in place. Broken pets
 * (named by the controller in the Progressing message) follow the counts in every phase but
 * observing and complete; on a terminal, brokenPetHints says what to do about them.
 */
export function statusLine(s: RolloutState): string {
  const who = `petset "${s.name}"`;
  switch (s.phase) {
    case "observing":
      return `${who}: waiting for the controller to observe generation ${s.generation ?? "?"} (observed ${s.observedGeneration ?? "none"})`;
    case "complete":
      return `${who}: rollout complete: ${s.updated} of ${s.desired} pods at version ${v(s.updateVersion)}, ${s.ready} ready`;
    case "failed":
      return `${who}: rollout failed: ${s.reason ?? "unknown"}${s.message ? `: ${s.message}` : ""}${broken(s)}`;
    case "paused":
      return `${who}: paused at ${counts(s)}${broken(s)}; kubectl petset resume ${s.name} continues the rollout`;
    case "stepPaused":
      return `${who}: ${stepText(s)}; ${counts(s)}${broken(s)}; kubectl petset promote ${s.name} continues the rollout`;
    case "progressing":
      return `${who}: ${transition(s)}: ${counts(s)}${broken(s)}${s.step !== undefined ? `, ${stepText(s)}` : reason(s)}`;
  }
}

/** `; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4`, or nothing. */
function broken(s: RolloutState): string {
  return brokenPetsSuffix(s.brokenPets, s.moreBroken);
}

/**
 * On a terminal, under the status line while pets are broken: the ways out. A fix is a new
 * version, which replaces pods that never became Ready at once (SPEC rule 4); waiting ends at
 * the progress deadline, which the broken pets do not change.
 */
export function brokenPetHints(s: RolloutState): string[] {
  if (s.brokenPets.length === 0 || s.phase === "complete" || s.phase === "observing") return [];
  const image = s.containers.length === 1 ? `${s.containers[0]}=IMAGE` : "CONTAINER=IMAGE";
  const lines = [
    [`kubectl petset rollback ${s.name}`, "go back to the previous version"],
    [`kubectl petset set image ${s.name} ${image}`, "roll out a fix; broken pets are replaced at once"],
  ];
  const width = Math.max(...lines.map(([cmd]) => (cmd ?? "").length));
  return [
    "broken pets: what to do",
    ...lines.map(([cmd, what]) => `  ${(cmd ?? "").padEnd(width)}  ${what}`),
    ...waitHint(s),
  ];
}

/** Waiting ends at the progress deadline, which does not run while paused. */
function waitHint(s: RolloutState): string[] {
  const after = `after ${s.progressDeadlineSeconds}s without progress`;
  if (s.phase === "paused" || s.phase === "stepPaused") return [];
  if (s.autoRollback)
    return [
      `  or wait: it rolls back by itself ${s.phase === "failed" ? "" : `${after} `}(spec.autoRollback)`,
    ];
  if (s.phase === "failed") return [];
  return [`  or wait: the rollout fails ${after} (spec.progressDeadlineSeconds)`];
}

/** "step 2 of 5 (pause) of version 3: paused until promoted". */
function stepText(s: RolloutState): string {
  const step = s.step;
  if (step === undefined) return "paused at a step";
  const at = `step ${step.step} of ${step.total} (${step.description}) of version ${step.version}`;
  if (step.waitingFor === "pets") return `${at}: moving pets`;
  if (step.waitingFor === "time") return `${at}: paused until ${step.resumeAt ?? "?"} or promoted`;
  return `${at}: paused until promoted`;
}

/**
 * One terminal line: `web  [██████░░░░░░]  2/3 updated  3/3 ready  v2 -> v3  RollingOut`,
 * the bar counting pets at the update version among those the strategy moves. `width` is
 * the terminal width; the line is cut to fit so redrawing in place never wraps.
 */
export function progressLine(s: RolloutState, width: number): string {
  const barWidth = 20;
  const fraction = s.toUpdate === 0 ? 1 : Math.min(1, s.updated / s.toUpdate);
  const filled = Math.round(fraction * barWidth);
  const bar = `[${"█".repeat(filled)}${"░".repeat(barWidth - filled)}]`;
  const versions =
    s.currentVersion !== undefined && s.currentVersion !== s.updateVersion
      ? `v${v(s.currentVersion)} -> v${v(s.updateVersion)}`
      : `v${v(s.updateVersion)}`;
  const parts = [
    s.name,
    bar,
    `${s.updated}/${s.toUpdate} updated`,
    `${s.ready}/${s.desired} ready`,
    versions,
    s.phase === "observing" ? "observing" : (s.reason ?? s.phase),
    ...(s.brokenPets.length > 0
      ? [`broken: ${s.brokenPets.map((p) => p.pet).join(",")}${s.moreBroken > 0 ? ` +${s.moreBroken}` : ""}`]
      : []),
    ...(s.step !== undefined ? [`step ${s.step.step}/${s.step.total} ${s.step.description}`] : []),
  ];
  const line = parts.join("  ");
  return [...line].length <= width ? line : `${[...line].slice(0, Math.max(0, width - 1)).join("")}…`;
}

function transition(s: RolloutState): string {
  if (s.currentVersion !== undefined && s.updateVersion !== undefined && s.currentVersion !== s.updateVersion)
    return `rolling out version ${s.currentVersion} -> ${s.updateVersion}`;
  return `rolling out version ${v(s.updateVersion)}`;
}

function counts(s: RolloutState): string {
  const partitioned = s.toUpdate < s.desired ? ` (${s.desired - s.toUpdate} held by the partition)` : "";
  return `${s.updated} of ${s.toUpdate} pods updated${partitioned}, ${s.ready} of ${s.desired} ready`;
}

function reason(s: RolloutState): string {
  if (s.reason === undefined) return "";
  return s.message ? ` (${s.reason}: ${s.message})` : ` (${s.reason})`;
}

function v(n: number | undefined): string {
  return n === undefined ? "?" : String(n);
}
