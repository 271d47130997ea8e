/**
 * `kubectl petset status` and broken pets (issue 31 item 2): the pets the controller names in
 * the Progressing message are shown in every phase's line, and on a terminal what to do.
 */
import { describe, expect, it } from "vitest";
import type { PetSet } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import { brokenPetHints, progressLine, statusLine } from "../../../src/cli/plugin/format-status.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { rolloutState } from "../../../src/cli/plugin/rollout-state.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { NOW, petSet } from "./fixtures.js";

const BROKEN =
  "PetSet web: 1 of 3 pets at version 4; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4";

const rollingOut = (message = BROKEN, reason = "RollingOut", status = "True") => ({
  observedGeneration: 5,
  replicas: 3,
  readyReplicas: 2,
  updatedReplicas: 1,
  currentVersion: 3,
  updateVersion: 4,
  conditions: [{ type: "Progressing", status, reason, message }],
});

const withSpec = (p: PetSet, spec: Partial<PetSet["spec"]>): PetSet => ({
  ...p,
  spec: { ...p.spec, ...spec },
});

describe("status line and hints with broken pets", () => {
  it("issue 31 item 2: the rolling-out line names the broken pet and its reason", () => {
    const s = rolloutState(petSet({ status: rollingOut() }));
    expect(s.brokenPets).toEqual([{ pet: "web-2", problem: "CrashLoopBackOff, 13 restarts, at version 4" }]);
    expect(statusLine(s)).toBe(
      'petset "web": rolling out version 3 -> 4: 1 of 3 pods updated, 2 of 3 ready; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4 (RollingOut: PetSet web: 1 of 3 pets at version 4)',
    );
    expect(progressLine(s, 200)).toBe(
      "web  [███████░░░░░░░░░░░░░]  1/3 updated  2/3 ready  v3 -> v4  RollingOut  broken: web-2",
    );
  });

  it("issue 31 item 2: on a terminal, what to do: roll back, set image, or wait for the deadline", () => {
    expect(brokenPetHints(rolloutState(petSet({ status: rollingOut() })))).toEqual([
      "broken pets: what to do",
      "  kubectl petset rollback web             go back to the previous version",
      "  kubectl petset set image web app=IMAGE  roll out a fix; broken pets are replaced at once",
      "  or wait: the rollout fails after 600s without progress (spec.progressDeadlineSeconds)",
    ]);
    const auto = withSpec(petSet({ status: rollingOut() }), {
      autoRollback: true,
      progressDeadlineSeconds: 60,
    });
    expect(brokenPetHints(rolloutState(auto)).at(-1)).toBe(
      "  or wait: it rolls back by itself after 60s without progress (spec.autoRollback)",
    );
  });

  it("issue 31 item 2: past the deadline the failed line still names the pet; no waiting hint", () => {
    const failed = rolloutState(
      petSet({
        status: rollingOut(
          `PetSet web: version 4 made no progress for 600s (spec.progressDeadlineSeconds); 1 of 3 pets at version 4; broken pet web-2: CrashLoopBackOff, 40 restarts, at version 4`,
          "ProgressDeadlineExceeded",
          "False",
        ),
      }),
    );
    expect(failed.phase).toBe("failed");
    expect(statusLine(failed)).toBe(
      'petset "web": rollout failed: ProgressDeadlineExceeded: PetSet web: version 4 made no progress for 600s (spec.progressDeadlineSeconds); 1 of 3 pets at version 4; broken pet web-2: CrashLoopBackOff, 40 restarts, at version 4',
    );
    expect(brokenPetHints(failed)).toHaveLength(3);
  });

  it("no broken pet: no hints, the line as before", () => {
    const s = rolloutState(petSet({ status: rollingOut("PetSet web: 1 of 3 pets at version 4") }));
    expect(brokenPetHints(s)).toEqual([]);
    expect(statusLine(s)).toBe(
      'petset "web": rolling out version 3 -> 4: 1 of 3 pods updated, 2 of 3 ready (RollingOut: PetSet web: 1 of 3 pets at version 4)',
    );
  });
});

describe("kubectl petset status with a broken pet", () => {
  async function run(tty: boolean, ...args: string[]) {
    const api = new FakePetSetApi();
    api.put(petSet({ status: rollingOut() }));
    const out: string[] = [];
    const deps: PluginDeps = {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: tty, columns: 100 },
        stderr: { write: () => undefined, isTTY: false },
      },
      clock: { now: () => NOW },
      connect: () => api,
    };
    const code = await runPlugin(args, deps);
    return { code, stdout: out.join("") };
  }

  it("issue 31 item 2: names the pet; the hints only on a terminal", async () => {
    const piped = await run(false, "status", "web");
    expect(piped.code).toBe(2);
    expect(piped.stdout).toContain("broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4");
    expect(piped.stdout).not.toContain("what to do");
    const terminal = await run(true, "status", "web");
    expect(terminal.stdout).toContain("broken pet web-2: CrashLoopBackOff");
    expect(terminal.stdout).toContain("kubectl petset rollback web");
    expect(terminal.stdout).toContain("kubectl petset set image web app=IMAGE");
  });

  it("issue 31 item 2: --watch on a terminal prints the broken pet and the hints above the bar", async () => {
    const r = await run(true, "status", "web", "--watch", "--timeout", "20ms");
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4");
    expect(r.stdout).toContain("broken pets: what to do\n");
    expect(r.stdout).toContain("broken: web-2");
  });
});
