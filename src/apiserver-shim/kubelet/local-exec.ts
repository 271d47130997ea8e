/**
 * The simulated kubelet's exec: runs a command of `pods/exec` as a local process of the
 * server, with the container's environment, in a working directory of its own per pod
 * (created on first use, removed when the pod is deleted). The process runs as the user
 * running the server: see docs/apiserver-shim.md ("exec") for the security model.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";

export interface LocalExecRequest {
  pod: { namespace: string; name: string; uid: string; hostname: string };
  container: string;
  command: string[];
  /** The container's variables (see container-env.ts); PATH, HOME and HOSTNAME are added. */
  env: Record<string, string>;
  stdin: boolean;
}

/** How a command ended: its exit code, or why it never ran. */
export type ExecOutcome = { kind: "exited"; exitCode: number } | { kind: "failed"; message: string };

export interface RunningExec {
  onStdout(fn: (chunk: Buffer) => void): void;
  onStderr(fn: (chunk: Buffer) => void): void;
  writeStdin(chunk: Buffer): void;
  endStdin(): void;
  /** Kills the command and everything it started (its process group). */
  kill(): void;
  /** Settles once the process exited and its output was read. Never rejects. */
  readonly done: Promise<ExecOutcome>;
}

/** Runs exec commands; the contract the HTTP layer depends on. */
export interface ContainerExecutor {
  start(req: LocalExecRequest): RunningExec;
  /** The pod is gone: remove its working directory. */
  forgetPod(uid: string): void;
  /** Kills running commands and removes a temporary root. */
  close(): void;
}

export interface LocalExecOptions {
  /** Root of the per-pod directories; default: a fresh directory in the OS temp dir. */
  rootDir?: string;
  logger?: Logger;
}

const podDirName = (p: LocalExecRequest["pod"]) => `${p.namespace}_${p.name}_${p.uid}`;

export class LocalExecutor implements ContainerExecutor {
  private root: string | undefined;
  private readonly ownsRoot: boolean;
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly opts: LocalExecOptions = {}) {
    this.root = opts.rootDir;
    this.ownsRoot = opts.rootDir === undefined;
  }

  /** The per-pod directory, created on demand. */
  workDir(pod: LocalExecRequest["pod"]): string {
    if (this.root === undefined) this.root = mkdtempSync(join(tmpdir(), "petset-exec-"));
    const dir = join(this.root, podDirName(pod));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  start(req: LocalExecRequest): RunningExec {
    const [file, ...args] = req.command;
    const cwd = this.workDir(req.pod);
    const env = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: cwd,
      HOSTNAME: req.pod.hostname,
      ...req.env,
    };
    const outs: ((b: Buffer) => void)[] = [];
    const errs: ((b: Buffer) => void)[] = [];
    let child: ChildProcess;
    try {
      // Own process group, so kill() also ends what the command started (sh -c 'sleep 60').
      child = spawn(file ?? "", args, {
        cwd,
        env,
        detached: true,
        stdio: [req.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      });
    } catch (err) {
      return failedExec(startFailure(file ?? "", err));
    }
    this.running.add(child);
    child.stdout?.on("data", (b: Buffer) => {
      for (const f of outs) f(b);
    });
    child.stderr?.on("data", (b: Buffer) => {
      for (const f of errs) f(b);
    });
    child.stdin?.on("error", () => undefined); // EPIPE when the command does not read stdin
    const done = new Promise<ExecOutcome>((resolve) => {
      child.once("error", (err) => resolve(startFailure(file ?? "", err)));
      child.once("close", (code, signal) => {
        // As a shell reports it: 128 + signal number for a killed process.
        const bySignal = signal ? 128 + (signalNumbers[signal] ?? 9) : undefined;
        resolve({ kind: "exited", exitCode: code ?? bySignal ?? 1 });
      });
    }).finally(() => this.running.delete(child));
    this.opts.logger?.debug(
      { pod: `${req.pod.namespace}/${req.pod.name}`, container: req.container, command: req.command },
      "exec",
    );
    return {
      onStdout: (fn) => outs.push(fn),
      onStderr: (fn) => errs.push(fn),
      writeStdin: (b) => {
        if (child.stdin?.writable) child.stdin.write(b);
      },
      endStdin: () => child.stdin?.end(),
      kill: () => killGroup(child),
      done,
    };
  }

  forgetPod(uid: string): void {
    if (this.root === undefined) return;
    let entries: string[];
    try {
      entries = readdirSync(this.root);
    } catch {
      return;
    }
    for (const e of entries)
      if (e.endsWith(`_${uid}`)) rmSync(join(this.root, e), { recursive: true, force: true });
  }

  close(): void {
    for (const c of this.running) killGroup(c);
    if (this.ownsRoot && this.root !== undefined) rmSync(this.root, { recursive: true, force: true });
  }
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGPIPE: 13,
  SIGTERM: 15,
};

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** The runtime's wording for a command that cannot start. */
function startFailure(file: string, err: unknown): ExecOutcome {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === "ENOENT"
      ? `exec: "${file}": executable file not found in $PATH`
      : code === "EACCES"
        ? `exec: "${file}": permission denied`
        : `exec: "${file}": ${err instanceof Error ? err.message : String(err)}`;
  return { kind: "failed", message };
}

function failedExec(outcome: ExecOutcome): RunningExec {
  return {
    onStdout: () => undefined,
    onStderr: () => undefined,
    writeStdin: () => undefined,
    endStdin: () => undefined,
    kill: () => undefined,
    done: Promise.resolve(outcome),
  };
}
