/**
 * The side effects of a chaos run's hooks, outside the cluster: a log file (in a temporary
 * directory of the test process) that every execution appends to, in the format
 * hook-outcome.ts parses (`<epoch ms> start|end <hook id> <attempt>`), and the babysitter the
 * webhook hooks POST to.
 *
 * - Job and exec bodies are `sh -c` scripts (`hookScript`): they write `start`, then `pid` (a
 *   line the judge skips, naming the shell's pid), run for a while, and write `end` and
 *   `exit` from an EXIT trap (SIGTERM, SIGINT and SIGHUP exit through it). The simulated
 *   kubelet runs them as local processes (Job pods on `petset dev`, pods/exec on both
 *   backends); on the real backend kwok runs no Job pod, so Jobs are judged from their pods
 *   (hook-recorder.ts) instead.
 * - A body SIGKILLed (exec streams are killed so) cannot write its `end`: `HookLog` watches
 *   every logged pid and, once the process is gone (no /proc entry, or a zombie), writes the
 *   `end` for it (and a `gone` line). An execution whose process is never confirmed gone stays
 *   open, and any later start of its id is an overlap. The watcher polls every 50 ms, so an
 *   `end` it writes may come that much after the death: strict, never lenient.
 * - The babysitter logs `start` when a HookReview arrives and `end` when it answers (after a
 *   delay of its own), and answers Succeeded. It does not serialize by uid, so two POSTs of
 *   one uid at once show as an overlap. A client that goes away does not stop the work.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { Rng } from "./prng.js";

/**
 * A shell script that logs its execution of the hook ($PETSET_HOOK_ID, $PETSET_HOOK_ATTEMPT).
 * No `$$` and no `$(…)`: Kubernetes expands `$(VAR)` and `$$` in a container's command (a
 * Job's), so the pid is read from /proc/self/stat and commands are substituted with backquotes.
 */
export function hookScript(logPath: string, runSeconds: number): string {
  const quoted = `'${logPath.replace(/'/g, `'\\''`)}'`;
  return [
    `L=${quoted}; i="$PETSET_HOOK_ID"; a="$PETSET_HOOK_ATTEMPT"; read p _ < /proc/self/stat`,
    `t() { date +%s%3N; }`,
    `printf '%s start %s %s\\n%s pid %s %s %s\\n' "\`t\`" "$i" "$a" "\`t\`" "$i" "$a" "$p" >> "$L"`,
    `trap 'printf "%s end %s %s\\n%s exit %s %s %s\\n" "\`t\`" "$i" "$a" "\`t\`" "$i" "$a" "$p" >> "$L"' EXIT`,
    // The work runs in the background and the shell waits for it: a trapped signal ends a
    // `wait` at once, while a shell in a foreground command runs its trap only after that
    // command. A TERM to the group that lands while the shell forks the work can be lost in
    // the child before it execs; the trap ends the work itself (a hook-bodies unit test waited
    // the whole 30 s of a `sleep 30` that survived its group's SIGTERM, under load).
    `trap 'kill $s 2>/dev/null; exit 143' TERM INT HUP`,
    `sleep ${runSeconds} & s=$!; wait $s`,
  ].join("\n");
}

const PID_LINE = /^\d+ (pid|exit) (\S+) (\d+) (\d+)$/;

function processGone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

export class HookLog {
  readonly dir = mkdtempSync(join(tmpdir(), "petset-chaos-hooks-"));
  readonly path = join(this.dir, "hooks.log");
  /** pid → "<id> <attempt>", for executions that have not written their `exit`. */
  private readonly open = new Map<number, string>();
  private offset = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    appendFileSync(this.path, "");
  }

  append(kind: string, id: string, attempt: number, extra = ""): void {
    appendFileSync(this.path, `${Date.now()} ${kind} ${id} ${attempt}${extra}\n`);
  }

  /** Starts confirming gone processes (and writing their `end`). */
  watch(): void {
    this.timer ??= setInterval(() => this.sweep(), 50);
  }

  /** One pass: read new lines, end the executions whose process is gone. */
  sweep(): void {
    const text = readFileSync(this.path, "utf8");
    const complete = text.lastIndexOf("\n") + 1;
    for (const line of text.slice(this.offset, complete).split("\n")) {
      const m = PID_LINE.exec(line);
      if (!m) continue;
      const pid = Number(m[4]);
      if (m[1] === "pid") this.open.set(pid, `${m[2]} ${m[3]}`);
      else this.open.delete(pid);
    }
    this.offset = complete;
    for (const [pid, key] of this.open) {
      if (!processGone(pid)) continue;
      this.open.delete(pid);
      const [id = "", attempt = "0"] = key.split(" ");
      this.append("end", id, Number(attempt));
      this.append("gone", id, Number(attempt), ` ${pid}`);
    }
  }

  /** Executions still open (their process alive) at the last sweep. */
  openCount(): number {
    return this.open.size;
  }

  text(): string {
    return readFileSync(this.path, "utf8");
  }

  stop(keep: boolean): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}

const HookReviewSchema = z.looseObject({
  request: z.looseObject({ uid: z.string(), attempt: z.number().int().optional() }),
});

export interface Babysitter {
  url: string;
  received(): number;
  stop(): Promise<void>;
}

/** A webhook babysitter on loopback: logs each HookReview's work, answers Succeeded. */
export async function startBabysitter(log: HookLog, rng: Rng): Promise<Babysitter> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let review: z.infer<typeof HookReviewSchema>;
      try {
        review = HookReviewSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (err) {
        res.writeHead(400).end(String(err));
        return;
      }
      received++;
      const { uid, attempt = 0 } = review.request;
      log.append("start", uid, attempt);
      setTimeout(
        () => {
          log.append("end", uid, attempt);
          const response = { uid, result: "Succeeded", message: "babysitter did the work" };
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ apiVersion: "hooks.petset.dev/v1", kind: "HookReview", response }));
        },
        rng.int(200, 1000),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
