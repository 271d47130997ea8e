/**
 * Runs the containers of run-to-completion pods (restartPolicy Never or OnFailure, e.g.
 * Job pods) as local processes, so a Job really does its work on `petset dev`:
 * `command` + `args` with the container's env (container-env.ts), in a fresh temporary
 * working directory per pod. Once the stages made the pod Running, every container's
 * process starts; exit code 0 → terminated Completed, otherwise terminated Error with
 * that exit code (127 when the command cannot be started). When all containers have
 * exited the pod goes Succeeded (all 0) or Failed. OnFailure restarts a failed container
 * after `restartDelayMs` with restartCount + 1. A container without `command` completes
 * at once with exit code 0 (there is no image to take an entrypoint from). Deleting the
 * pod kills its processes (SIGTERM to the process group, SIGKILL 2 s later).
 * restartPolicy Always pods are left to the stages: nothing is executed for them.
 *
 * Only for servers whose pod authors may run code on this machine (`petset dev` and the
 * embedded test backend): the kubelet enables it with `runProcesses`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import { type CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { z } from "zod";
import type { TimerClock } from "./clock.js";
import { type KubeObject, MetaSchema, timestamp } from "./objects.js";
import { containerArgv, containerEnv, type PodFacts, RunnableContainerSchema } from "./process-env.js";
import { statusCode } from "./writer.js";

const RunnablePodSchema = z.looseObject({
  metadata: MetaSchema,
  spec: z.looseObject({
    nodeName: z.string().optional().nullable(),
    restartPolicy: z.string().optional().nullable(),
    serviceAccountName: z.string().optional().nullable(),
    containers: z.array(RunnableContainerSchema),
  }),
  status: z
    .looseObject({
      phase: z.string().optional(),
      podIP: z.string().optional().nullable(),
      hostIP: z.string().optional().nullable(),
      conditions: z
        .array(z.looseObject({ type: z.string(), status: z.string() }))
        .optional()
        .nullable(),
      containerStatuses: z
        .array(z.looseObject({ name: z.string() }))
        .optional()
        .nullable(),
    })
    .optional()
    .nullable(),
});
type RunnablePod = z.infer<typeof RunnablePodSchema>;

export interface ProcessRunnerOptions {
  core: CoreV1Api;
  logger: Logger;
  clock: TimerClock;
  managedNodes: readonly string[];
  /** Parent of the per-pod working directories (default: a new temporary directory). */
  workDir?: string;
  restartDelayMs?: number;
  /** PATH the processes get (default: the kubelet's own PATH). */
  path?: string;
}

interface ContainerRun {
  proc: ChildProcess | undefined;
  startedAt: string;
  restarts: number;
  exit?: { code: number; finishedAt: string };
  lastExit?: { code: number; startedAt: string; finishedAt: string };
}

interface PodRun {
  pod: RunnablePod;
  dir: string;
  containers: Map<string, ContainerRun>;
  killed: boolean;
}

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

export function runsToCompletion(restartPolicy: string | null | undefined): boolean {
  return restartPolicy === "Never" || restartPolicy === "OnFailure";
}

export class ProcessRunner {
  private readonly runs = new Map<string, PodRun>();
  private readonly managed: Set<string>;
  private readonly root: string;
  private readonly path: string;
  private stopped = false;

  constructor(private readonly o: ProcessRunnerOptions) {
    this.managed = new Set(o.managedNodes);
    this.root = o.workDir ?? mkdtempSync(join(tmpdir(), "petset-kubelet-"));
    this.path = o.path ?? process.env.PATH ?? "/usr/bin:/bin";
  }

  /** Call after the cache added or updated a pod. */
  observe(obj: KubeObject): void {
    const pod = RunnablePodSchema.safeParse(obj).data;
    if (!pod || this.stopped || !runsToCompletion(pod.spec.restartPolicy)) return;
    const uid = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    const run = this.runs.get(uid);
    if (run) run.pod = pod;
    if (pod.metadata.deletionTimestamp) {
      if (run) this.kill(run);
      return;
    }
    if (run || !this.managed.has(pod.spec.nodeName ?? "") || pod.status?.phase !== "Running") return;
    this.start(uid, pod);
  }

  /** Call after the cache deleted a pod. */
  forget(obj: KubeObject): void {
    const uid = obj.metadata.uid ?? `${obj.metadata.namespace}/${obj.metadata.name}`;
    const run = this.runs.get(uid);
    if (!run) return;
    this.kill(run);
    this.runs.delete(uid);
    rmSync(run.dir, { recursive: true, force: true });
  }

  /** Kills every process and removes the working directories. */
  stop(): void {
    this.stopped = true;
    for (const run of this.runs.values()) this.kill(run);
    this.runs.clear();
    if (!this.o.workDir) rmSync(this.root, { recursive: true, force: true });
  }

  private start(uid: string, pod: RunnablePod): void {
    const safe = `${pod.metadata.namespace ?? "default"}_${pod.metadata.name}`.replace(
      /[^A-Za-z0-9_.-]/g,
      "_",
    );
    const run: PodRun = {
      pod,
      dir: mkdtempSync(join(this.root, `${safe}-`)),
      containers: new Map(),
      killed: false,
    };
    this.runs.set(uid, run);
    this.o.logger.debug({ pod: safe }, "simulated kubelet: running pod processes");
    for (const c of pod.spec.containers) this.spawnContainer(run, c.name, 0);
  }

  private facts(pod: RunnablePod): PodFacts {
    return {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace ?? "default",
      uid: pod.metadata.uid ?? "",
      labels: pod.metadata.labels ?? {},
      annotations: pod.metadata.annotations ?? {},
      nodeName: pod.spec.nodeName ?? "",
      serviceAccountName: pod.spec.serviceAccountName ?? "",
      podIP: pod.status?.podIP ?? "",
      hostIP: pod.status?.hostIP ?? "",
    };
  }

  private spawnContainer(run: PodRun, name: string, restarts: number): void {
    const c = run.pod.spec.containers.find((x) => x.name === name)!;
    const env = containerEnv(c, this.facts(run.pod), {
      path: this.path,
      home: run.dir,
    });
    const argv = containerArgv(c, env);
    const cr: ContainerRun = { proc: undefined, startedAt: timestamp(this.o.clock.now()), restarts };
    const prev = run.containers.get(name);
    if (prev?.exit)
      cr.lastExit = { code: prev.exit.code, startedAt: prev.startedAt, finishedAt: prev.exit.finishedAt };
    run.containers.set(name, cr);
    if (!argv) {
      queueMicrotask(() => this.exited(run, name, cr, 0));
      return;
    }
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      this.exited(run, name, cr, code);
    };
    const proc = spawn(argv[0]!, argv.slice(1), { cwd: run.dir, env, stdio: "ignore", detached: true });
    cr.proc = proc;
    proc.on("error", () => finish(127));
    proc.on("exit", (code, signal) => finish(code ?? 128 + signalNumber(signal)));
  }

  private exited(run: PodRun, name: string, cr: ContainerRun, code: number): void {
    cr.proc = undefined;
    if (run.killed || this.stopped) return;
    cr.exit = { code, finishedAt: timestamp(this.o.clock.now()) };
    if (code !== 0 && run.pod.spec.restartPolicy === "OnFailure") {
      this.o.clock.setTimer(this.o.restartDelayMs ?? 1000, () => {
        if (run.killed || this.stopped) return;
        this.spawnContainer(run, name, cr.restarts + 1);
        void this.writeStatus(run);
      });
      void this.writeStatus(run);
      return;
    }
    if (
      [...run.containers.values()].every((c) => c.exit) &&
      run.containers.size === run.pod.spec.containers.length
    )
      void this.writeStatus(run);
  }

  private kill(run: PodRun): void {
    if (run.killed) return;
    run.killed = true;
    for (const cr of run.containers.values()) {
      const pid = cr.proc?.pid;
      if (pid === undefined) continue;
      signalGroup(pid, "SIGTERM");
      this.o.clock.setTimer(2000, () => signalGroup(pid, "SIGKILL"));
    }
  }

  /** The pod's status from the container runs (merge patch: lists complete). */
  podStatus(run: PodRun): Record<string, unknown> {
    const now = timestamp(this.o.clock.now());
    const runs = run.pod.spec.containers.map((c) => ({ c, cr: run.containers.get(c.name)! }));
    const finished = runs.every(
      ({ cr }) => cr.exit && !(cr.exit.code !== 0 && run.pod.spec.restartPolicy === "OnFailure"),
    );
    const previous = new Map(
      (run.pod.status?.containerStatuses ?? []).map((s) => [s.name, s as Record<string, unknown>]),
    );
    const containerStatuses = runs.map(({ c, cr }) => {
      const terminated = (code: number, startedAt: string, finishedAt: string) => ({
        terminated: { exitCode: code, reason: code === 0 ? "Completed" : "Error", startedAt, finishedAt },
      });
      const restarting = cr.exit && cr.exit.code !== 0 && !finished;
      return {
        ...(previous.get(c.name) ?? {}),
        name: c.name,
        image: c.image ?? "",
        ready: false,
        started: !cr.exit,
        restartCount: cr.restarts,
        state:
          cr.exit && !restarting
            ? terminated(cr.exit.code, cr.startedAt, cr.exit.finishedAt)
            : restarting
              ? {
                  waiting: {
                    reason: "CrashLoopBackOff",
                    message: `back-off restarting failed container=${c.name}`,
                  },
                }
              : { running: { startedAt: cr.startedAt } },
        lastState: restarting
          ? terminated(cr.exit!.code, cr.startedAt, cr.exit!.finishedAt)
          : cr.lastExit
            ? terminated(cr.lastExit.code, cr.lastExit.startedAt, cr.lastExit.finishedAt)
            : {},
      };
    });
    const succeeded = finished && runs.every(({ cr }) => cr.exit?.code === 0);
    const status: Record<string, unknown> = { containerStatuses };
    const reason = !finished ? "ContainersNotReady" : succeeded ? "PodCompleted" : "PodFailed";
    const conditions = (run.pod.status?.conditions ?? []).map((cond) =>
      (cond.type === "Ready" || cond.type === "ContainersReady") && cond.status !== "False"
        ? { ...cond, status: "False", reason, lastTransitionTime: now }
        : cond,
    );
    status.conditions = conditions;
    if (finished) status.phase = succeeded ? "Succeeded" : "Failed";
    return status;
  }

  private async writeStatus(run: PodRun, attempt = 0): Promise<void> {
    const { name, namespace } = run.pod.metadata;
    const ns = namespace ?? "default";
    try {
      const body = { status: this.podStatus(run) };
      await this.o.core.patchNamespacedPodStatus({ name, namespace: ns, body }, mergePatch);
    } catch (err) {
      if (statusCode(err) === 404 || run.killed || this.stopped) return;
      if (attempt >= 5) {
        this.o.logger.warn({ err, pod: `${ns}/${name}` }, "simulated kubelet: pod status not written");
        return;
      }
      await new Promise<void>((r) => this.o.clock.setTimer(200 * 2 ** attempt, r));
      await this.writeStatus(run, attempt + 1);
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return (signal && osConstants.signals[signal]) || 15;
}
