/**
 * A chaos run's hook side effects, measured (issue 24): the log the bodies append to and the
 * babysitter (hook-bodies.ts), the API's view of versions, hook Jobs and their pods
 * (hook-recorder.ts), and the verdicts of hook-outcome.ts over them:
 * - `hookOverlaps`: from the log (exec and webhook on both backends; Jobs on the embedded
 *   server, whose kubelet runs Job pods as local processes); on the real backend kwok runs no
 *   Job process, so Jobs are judged from their pods' times as the harness saw them;
 * - `hooksForSkippedVersions`: a version stops being the target when a newer one becomes it
 *   (its `rolloutStartedAt`), not when the newer one is created: a newer version waits for the
 *   in-flight one (SPEC rule 2, docs/rollouts.md "At most two versions"), whose hooks go on
 *   (seed 562234 reported v6's preUpdate execs 3–5 s after v7 was created, rightly run: v6 was
 *   in flight). A start for a version after a newer one became the target is reported, and so
 *   is any start for a version that never became the target (skipped). A Job attempt is started
 *   when the controller creates its Job (its pod runs seconds later), so Jobs are judged by when
 *   their Job appeared (grace `JOB_GRACE_MS`); exec and webhook by the body's own start (grace
 *   `RUN_GRACE_MS`: the sync that decided just before, plus the way to the body);
 * - `hooksSucceededWithoutRun`: each Succeeded record (job, exec, webhook) needs an execution
 *   of its id that ran to its end: in the log, or (real backend Jobs) a pod seen Succeeded.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { ChaosBackend } from "./chaos-cluster.js";
import { type Babysitter, HookLog, startBabysitter } from "./hook-bodies.js";
import {
  type HookLogEvent,
  hookExecutions,
  hookOverlaps,
  hooksForSkippedVersions,
  hooksSucceededWithoutRun,
  type JudgedHookRecord,
  parseHookLog,
  type VersionSeen,
  versionOfHookId,
} from "./hook-outcome.js";
import { type HookRecorder, startHookRecorder } from "./hook-recorder.js";
import type { Rng } from "./prng.js";

export const JOB_GRACE_MS = 2_000;
export const RUN_GRACE_MS = 3_000;

export interface HookFindings {
  hookOverlaps: string[];
  hooksForSkippedVersions: string[];
  hooksSucceededWithoutRun: string[];
  /** What was judged (a run whose hooks never ran proves nothing): executions per handler. */
  hookRuns: { job: number; exec: number; webhook: number; records: number };
}

/** A version's number and when it became its PetSet's rollout target (status.rolloutStartedAt). */
export interface VersionFacts {
  petSet: string;
  version: number;
  rolloutStartedAt?: string;
}

/** Starts (with their time) for versions that never became the target: skipped, never to run. */
export function hooksForNeverTargeted(events: HookLogEvent[], versions: VersionFacts[]): string[] {
  const targeted = new Set(
    versions.filter((v) => v.rolloutStartedAt !== undefined).map((v) => `${v.petSet}/${v.version}`),
  );
  return events
    .filter((e) => e.kind === "start")
    .flatMap((e) => {
      const of = versionOfHookId(e.id);
      return of && !targeted.has(`${of.petSet}/${of.version}`)
        ? [`${e.id}: attempt ${e.attempt} started for v${of.version}, which never became the target`]
        : [];
    });
}

/** When each version became the target, as hooksForSkippedVersions reads "created". */
export function targetTimes(versions: VersionFacts[]): VersionSeen[] {
  return versions.flatMap((v) =>
    v.rolloutStartedAt === undefined
      ? []
      : [{ petSet: v.petSet, version: v.version, createdAt: Date.parse(v.rolloutStartedAt) }],
  );
}

export interface HookSideEffects {
  /** The log file the Job and exec bodies append to. */
  logPath: string;
  /** The babysitter's URL (a webhook fault proxy may stand in front of it). */
  babysitterUrl: string;
  /** Starts watching the run's namespace (versions, hook Jobs, their pods). */
  watch(kc: KubeConfig, namespace: string): void;
  judge(records: JudgedHookRecord[], versions: VersionFacts[]): HookFindings;
  /** The log's text (printed with a failure). */
  logText(): string;
  stop(): Promise<void>;
}

export async function startHookSideEffects(backend: ChaosBackend, rng: Rng): Promise<HookSideEffects> {
  const log = new HookLog();
  log.watch();
  let sitter: Babysitter | undefined;
  let recorder: HookRecorder | undefined;
  try {
    sitter = await startBabysitter(log, rng);
  } catch (err) {
    log.stop(false);
    throw err;
  }
  const babysitter = sitter;
  return {
    logPath: log.path,
    babysitterUrl: babysitter.url,
    watch(kc, namespace) {
      recorder ??= startHookRecorder(kc, namespace);
    },
    logText: () => log.text(),
    judge(records, facts) {
      log.sweep();
      const events = parseHookLog(log.text());
      const jobs = recorder?.jobs() ?? [];
      const jobIds = new Set([
        ...jobs.map((j) => j.id),
        ...records.filter((r) => r.handler === "job").map((r) => r.id),
      ]);
      const versions = targetTimes(facts);
      const jobPods = recorder?.jobExecutions() ?? [];
      // Jobs on the real backend: from their pods (kwok runs no process, the log has none).
      const overlaps = hookOverlaps(events);
      if (backend === "real") overlaps.push(...hookOverlaps(jobPods));
      const jobStarts: HookLogEvent[] = jobs.map((j, i) => ({
        kind: "start",
        id: j.id,
        attempt: j.attempt,
        at: j.seenAt,
        line: -(i + 1),
      }));
      const runStarts = events.filter((e) => !jobIds.has(e.id));
      const skipped = [
        ...hooksForSkippedVersions(jobStarts, versions, JOB_GRACE_MS),
        ...hooksForSkippedVersions(runStarts, versions, RUN_GRACE_MS),
        ...hooksForNeverTargeted([...jobStarts, ...runStarts], facts),
      ];
      const ran: HookLogEvent[] =
        backend === "real"
          ? jobPods
              .filter((x) => x.end !== undefined)
              .flatMap((x, i) => [
                { kind: "start" as const, id: x.id, attempt: x.attempt, line: -(2 * i + 1) },
                { kind: "end" as const, id: x.id, attempt: x.attempt, line: -(2 * i + 2) },
              ])
          : [];
      const handlerOf = new Map(records.map((r) => [r.id, r.handler]));
      const executions = hookExecutions(events);
      const count = (handler: string) => executions.filter((x) => handlerOf.get(x.id) === handler).length;
      return {
        hookOverlaps: overlaps,
        hooksForSkippedVersions: skipped,
        hooksSucceededWithoutRun: hooksSucceededWithoutRun(records, [...events, ...ran]),
        hookRuns: {
          job: backend === "real" ? jobPods.length : count("job"),
          exec: count("exec"),
          webhook: count("webhook"),
          records: records.length,
        },
      };
    },
    async stop() {
      recorder?.stop();
      await babysitter.stop();
      log.stop(process.env.CHAOS_KEEP === "1");
    },
  };
}
