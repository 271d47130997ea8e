/**
 * The chaos run's hook bodies and their log (test/chaos/hook-bodies.ts) with real processes
 * (their command as the simulated kubelet expands a Job's):
 * an execution that finishes, one terminated (SIGTERM to its group, as the simulated kubelet
 * does) and one SIGKILLed (as an exec stream is killed) each end in the log; two executions of
 * one id at once are reported by the judge; the babysitter logs its work and answers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { expandRefs } from "../../../src/apiserver-shim/kubelet/process-env.js";
import { HookLog, hookScript, startBabysitter } from "../../chaos/hook-bodies.js";
import { hookExecutions, hookOverlaps, parseHookLog } from "../../chaos/hook-outcome.js";
import { seededRng } from "../../chaos/prng.js";

const logs: HookLog[] = [];
afterEach(() => {
  for (const l of logs.splice(0)) l.stop(false);
});

function body(log: HookLog, id: string, attempt: number, seconds: number): ChildProcess {
  // As the simulated kubelet runs a Job's container: its command after $(VAR) expansion.
  return spawn("sh", ["-c", expandRefs(hookScript(log.path, seconds), {})], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      PETSET_HOOK_ID: id,
      PETSET_HOOK_ATTEMPT: String(attempt),
    },
    detached: true,
    stdio: "ignore",
  });
}

const exited = (c: ChildProcess) => new Promise<void>((resolve) => c.once("exit", () => resolve()));

/** Waits (bounded) until the log holds `n` lines of `kind` for `id`. */
async function lines(log: HookLog, kind: string, id: string, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    log.sweep();
    const count = log
      .text()
      .split("\n")
      .filter((l) => l.includes(` ${kind} ${id} `)).length;
    if (count >= n) return;
    if (Date.now() > deadline) throw new Error(`no ${n} × ${kind} ${id} in:\n${log.text()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("hook bodies", () => {
  it("survive Kubernetes' $(VAR) and $$ expansion of a Job's command unchanged (seen: `$$` became `$`)", () => {
    const script = hookScript("/tmp/x/hooks.log", 1);
    expect(expandRefs(script, { PETSET_HOOK_ID: "x", t: "y" })).toBe(script);
  });

  it("log start and end when they finish, are terminated, or are SIGKILLed (the watcher ends those)", async () => {
    const log = new HookLog();
    logs.push(log);
    const ok = body(log, "preUpdate.db.v2.0.a", 1, 0);
    await exited(ok);
    const term = body(log, "preUpdate.db.v2.1.b", 1, 30);
    await lines(log, "pid", "preUpdate.db.v2.1.b", 1);
    process.kill(-(term.pid ?? 0), "SIGTERM");
    await exited(term);
    const killed = body(log, "preRollout.db.v2.c", 1, 30);
    await lines(log, "pid", "preRollout.db.v2.c", 1);
    process.kill(-(killed.pid ?? 0), "SIGKILL");
    await exited(killed);
    await lines(log, "end", "preRollout.db.v2.c", 1);
    const text = log.text();
    expect(text).toMatch(/ gone preRollout\.db\.v2\.c 1 \d+\n/);
    const executions = hookExecutions(parseHookLog(text));
    expect(executions.map((x) => [x.id, x.end !== undefined])).toEqual([
      ["preUpdate.db.v2.0.a", true],
      ["preUpdate.db.v2.1.b", true],
      ["preRollout.db.v2.c", true],
    ]);
    expect(hookOverlaps(text)).toEqual([]);
    expect(log.openCount()).toBe(0);
  });

  it("two executions of one id at once are an overlap; one never confirmed gone stays open", async () => {
    const log = new HookLog();
    logs.push(log);
    const first = body(log, "preRollout.db.v3.d", 1, 30);
    await lines(log, "pid", "preRollout.db.v3.d", 1);
    const second = body(log, "preRollout.db.v3.d", 2, 0);
    await exited(second);
    log.sweep();
    expect(log.openCount()).toBe(1);
    expect(hookOverlaps(log.text())).toEqual([
      "preRollout.db.v3.d: attempt 2 started while attempt 1 was never seen to end",
    ]);
    process.kill(-(first.pid ?? 0), "SIGKILL");
    await exited(first);
    await lines(log, "end", "preRollout.db.v3.d", 2);
    expect(hookOverlaps(log.text())).toEqual([
      "preRollout.db.v3.d: attempt 2 started while attempt 1 was still running",
    ]);
  });

  it("the babysitter logs each review's work and answers Succeeded with its uid", async () => {
    const log = new HookLog();
    logs.push(log);
    const sitter = await startBabysitter(log, seededRng(1));
    try {
      const review = { request: { uid: "postUpdate.db.v2.0.e", attempt: 1 } };
      const res = await fetch(sitter.url, { method: "POST", body: JSON.stringify(review) });
      const answer = (await res.json()) as { response: { uid: string; result: string } };
      expect(answer.response).toMatchObject({ uid: "postUpdate.db.v2.0.e", result: "Succeeded" });
      expect(hookExecutions(parseHookLog(log.text()))).toMatchObject([
        { id: "postUpdate.db.v2.0.e", attempt: 1, end: 1 },
      ]);
      expect(sitter.received()).toBe(1);
    } finally {
      await sitter.stop();
    }
  });
});
