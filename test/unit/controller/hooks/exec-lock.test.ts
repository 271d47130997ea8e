/**
 * The exec hook's lock wrapper (src/controller/hooks/exec-lock.ts), run by the real `sh` as
 * pods/exec runs it in a container: one execution of a hook id at a time.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  EXEC_BUSY_EXIT,
  EXEC_NO_LOCK_EXIT,
  execLockName,
  isExecBusy,
  lockedExecCommand,
} from "../../../../src/controller/hooks/exec-lock.js";

const env = { PETSET_HOOK_ID: "preUpdate.web.v2.1.abc", PETSET_HOOK_ATTEMPT: "1" };
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petset-exec-lock-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string[], lock = "l") {
  const [bin, ...args] = lockedExecCommand(env, lock, command);
  const r = spawnSync(bin ?? "env", args, {
    env: { PATH: process.env.PATH ?? "", TMPDIR: dir },
    encoding: "utf8",
  });
  return { exitCode: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Polls `pred` until true or the deadline. */
async function until(pred: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error("condition not met before the deadline");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("exec hook lock (issue 24: never two executions of one hook id at once)", () => {
  it("runs the command with the hook's env and its exit code", () => {
    const r = run(["sh", "-c", 'echo "$PETSET_HOOK_ID $PETSET_HOOK_ATTEMPT"; exit 3']);
    expect(r).toMatchObject({ exitCode: 3, stdout: "preUpdate.web.v2.1.abc 1\n" });
  });

  it("a second run while the first still runs exits busy without running its command", async () => {
    const marker = join(dir, "ran");
    const [bin, ...args] = lockedExecCommand(env, "l", ["sh", "-c", `touch ${dir}/first; sleep 30`]);
    const first = spawn(bin ?? "env", args, { env: { PATH: process.env.PATH ?? "", TMPDIR: dir } });
    try {
      await until(() => existsSync(join(dir, "first")));
      const second = run(["sh", "-c", `touch ${marker}`]);
      expect(second.exitCode).toBe(EXEC_BUSY_EXIT);
      expect(second.stderr).toContain(`still running in this container (pid ${first.pid})`);
      expect(isExecBusy(second)).toBe(true);
      expect(existsSync(marker)).toBe(false);
      // Another hook id (another lock) is not held up.
      expect(run(["true"], "other").exitCode).toBe(0);
    } finally {
      first.kill("SIGKILL");
    }
    await new Promise((r) => first.once("exit", r));
    // The first was killed: its lock names a dead pid, and the next run takes it.
    const third = run(["sh", "-c", `touch ${marker}`]);
    expect(third.exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("a lock left by a finished execution is taken over; an empty one counts as held", () => {
    expect(run(["true"]).exitCode).toBe(0);
    expect(readFileSync(join(dir, "l"), "utf8")).toMatch(/^\d+\n$/);
    expect(run(["true"]).exitCode).toBe(0);
    writeFileSync(join(dir, "l"), "");
    const r = run(["true"]);
    expect(r.exitCode).toBe(EXEC_BUSY_EXIT);
    expect(r.stderr).toContain("(pid starting)");
  });

  it("a container without a writable TMPDIR fails the attempt, naming the path, and runs nothing", () => {
    const missing = join(dir, "no-such-dir");
    const [bin, ...args] = lockedExecCommand(env, "l", ["sh", "-c", "echo ran"]);
    const r = spawnSync(bin ?? "env", args, {
      env: { PATH: process.env.PATH ?? "", TMPDIR: missing },
      encoding: "utf8",
    });
    expect(r.status).toBe(EXEC_NO_LOCK_EXIT);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`cannot create the lock ${missing}/l`);
  });

  it("lock names keep to safe characters and differ per pod uid and hook id", () => {
    expect(execLockName("ns", "u-1", "preUpdate.web.v2.1.abc")).toBe(
      "petset-hook.ns.u-1.preUpdate.web.v2.1.abc.lock",
    );
    expect(execLockName("ns", "u/1", "a b")).toBe("petset-hook.ns.u_1.a_b.lock");
    expect(execLockName("ns", "u-2", "x")).not.toBe(execLockName("ns", "u-1", "x"));
  });
});
