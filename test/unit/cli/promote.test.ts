/** `kubectl petset promote`, `abort`, and the step in `status`, against the fake PetSet API. */
import { describe, expect, it } from "vitest";
import type { PetSet } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { history, NOW, petSet, version } from "./fixtures.js";

const paused = {
  observedGeneration: 5,
  replicas: 3,
  readyReplicas: 3,
  updatedReplicas: 1,
  currentVersion: 2,
  updateVersion: 3,
  conditions: [
    {
      type: "Progressing",
      status: "True" as const,
      reason: "StepPaused",
      message: "PetSet web: step 2 of 3 (pause) of version 3: paused until promoted",
    },
  ],
  rolloutStep: { version: 3, step: 2, total: 3, description: "pause", waitingFor: "promote" as const },
};

function setup() {
  const api = new FakePetSetApi();
  api.put(petSet({ status: paused }));
  api.versions = history().slice(0, 3);
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const deps: PluginDeps = {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: false, columns: 100 },
        stderr: { write: (s) => void err.push(s), isTTY: false },
      },
      clock: { now: () => NOW },
      connect: () => api,
    };
    const code = await runPlugin(args, deps);
    return { code, stdout: out.join(""), stderr: err.join("") };
  };
  return { api, run };
}

describe("kubectl petset promote", () => {
  it("annotates the step reached; promoting again before the controller acts changes nothing", async () => {
    const { run, api } = setup();
    expect(await run("promote", "web")).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web promoted: version 3 past step 2 of 3 (pause)\n",
      stderr: "",
    });
    expect(api.patches.map((p) => p.patch)).toEqual([
      { metadata: { annotations: { "petset.dev/promote": "3#2" } } },
    ]);
    expect((await run("promote", "web")).stdout).toContain("already promoted (petset.dev/promote=3#2)");
    expect(api.patches).toHaveLength(1);
  });

  it("--full passes every remaining step", async () => {
    const { run, api } = setup();
    expect((await run("promote", "web", "--full")).stdout).toBe(
      "petset.petset.dev/web promoted: version 3 past every remaining step (steps 2-3)\n",
    );
    expect(api.patches[0]?.patch).toEqual({ metadata: { annotations: { "petset.dev/promote": "3#full" } } });
  });

  it("says so when no step-wise rollout is in flight", async () => {
    const { run, api } = setup();
    api.setStatus("web", { rolloutStep: undefined });
    const r = await run("promote", "web");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: petset "web" has no step-wise rollout in flight/);
  });

  it("--help names the flag", async () => {
    const { run } = setup();
    const r = await run("promote", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--full");
  });
});

describe("kubectl petset abort", () => {
  it("rolls back to the current version and waits for the rollback version", async () => {
    const { run, api } = setup();
    api.onPatched = (p: PetSet) => {
      const image = p.spec.template.spec.containers[0]?.image ?? "";
      setTimeout(
        () => api.addVersion(version({ n: 4, image, created: "2025-06-01T12:00:00Z", rollbackOf: 2 })),
        5,
      );
    };
    const r = await run("abort", "web");
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web rolled back to version 2\ncreated version web-v4 (rollbackOf 2)\n",
      stderr: "",
    });
  });
});

describe("kubectl petset status with steps", () => {
  it("shows the step and what it waits for", async () => {
    const { run } = setup();
    expect(await run("status", "web")).toEqual({
      code: 2,
      stdout:
        'petset "web": step 2 of 3 (pause) of version 3: paused until promoted; 1 of 3 pods updated, 3 of 3 ready; kubectl petset promote web continues the rollout\n',
      stderr: "",
    });
  });
});
