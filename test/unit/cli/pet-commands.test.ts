/** `kubectl petset scale --remove` and `kubectl petset replace` (issue 28), against the fake PetSet API. */
import { describe, expect, it } from "vitest";
import { Labels } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import type { Pod } from "../../../src/cli/plugin/migrate/objects.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { NOW, petSet } from "./fixtures.js";

const pod = (name: string, labels: Record<string, string> = { [Labels.petSet]: "web" }): Pod => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: "7", labels },
});

function setup(reserveOrdinals?: (number | string)[]) {
  const api = new FakePetSetApi();
  const ps = petSet({ replicas: 3 });
  api.put(reserveOrdinals === undefined ? ps : { ...ps, spec: { ...ps.spec, reserveOrdinals } });
  api.podObjects = [pod("web-0"), pod("web-1"), pod("web-2"), pod("other-0", { app: "other" })];
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

describe("issue 28: kubectl petset scale --remove", () => {
  it("reserves the removed pet's ordinal and drops replicas by one, in one conditional patch", async () => {
    const { api, run } = setup();
    const r = await run("scale", "web", "--remove", "web-1");
    expect(r.code).toBe(0);
    expect(api.patches.map((p) => [p.patch, p.options.resourceVersion])).toEqual([
      [{ spec: { replicas: 2, reserveOrdinals: [1] } }, "100"],
    ]);
    expect(r.stdout).toContain("pets: web-0, web-2. This changed the live object");
  });

  it("keeps the reserved ordinals already there and names pets past them", async () => {
    const { api, run } = setup([1]);
    expect((await run("scale", "web", "--replicas", "2", "--remove", "web-3")).code).toBe(0);
    expect(api.patches[0]?.patch).toEqual({ spec: { replicas: 2, reserveOrdinals: [1, 3] } });
  });

  it.each([
    [["--remove", "web-7"], "--remove web-7: not a pet of petset web (its pets are web-0, web-1, web-2)"],
    [["--replicas", "two"], '--replicas must be a whole number >= 0, not "two"'],
    [[], "--replicas or --remove is required"],
  ])("refuses %j", async (flags, message) => {
    const { api, run } = setup();
    const r = await run("scale", "web", ...flags);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: ${message}\n`);
    expect(api.patches).toEqual([]);
  });
});

describe("issue 28: kubectl petset replace", () => {
  it("annotates the pod, conditional on its resourceVersion", async () => {
    const { api, run } = setup();
    const r = await run("replace", "web-2", "--reason", "disk errors");
    expect(r.code).toBe(0);
    expect(api.writes).toEqual(["patch pod web-2"]);
    expect(api.podObjects.find((p) => p.metadata.name === "web-2")?.metadata.annotations).toEqual({
      "petset.dev/replace": "keep",
      "petset.dev/replace-reason": "disk errors",
    });
  });

  it.each([
    [["web-2", "--claims", "recreate"], /--claims recreate deletes the claims of web-2 .* add --yes/],
    [["web-2", "--claims", "wipe"], /--claims must be keep or recreate, not "wipe"/],
    [["web-9"], /pod "web-9" not found in namespace "default"/],
    [["other-0"], /pod "other-0" is not a pet: it has no petset.dev\/petset label/],
  ])("refuses %j", async (args, message) => {
    const { api, run } = setup();
    const r = await run("replace", ...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(api.writes).toEqual([]);
  });

  it("issue 26 item 5: --claims recreate without --yes names the claims whose data is lost", async () => {
    const { api, run } = setup();
    const claim = (name: string, index: string) => ({
      metadata: {
        name,
        uid: `uid-${name}`,
        resourceVersion: "3",
        labels: { [Labels.petSet]: "web", [Labels.podIndex]: index },
      },
    });
    api.claims = [
      claim("data-web-2", "2"),
      claim("logs-web-2", "2"),
      claim("data-web-1", "1"),
    ] as typeof api.claims;
    const r = await run("replace", "web-2", "--claims", "recreate");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("deletes the claims of web-2 (data-web-2, logs-web-2: their data is lost)");
    expect(api.writes).toEqual([]);
  });

  it("--claims recreate --yes asks for the storage to be rebuilt", async () => {
    const { api, run } = setup();
    expect((await run("replace", "web-0", "--claims", "recreate", "--yes")).code).toBe(0);
    expect(api.podObjects[0]?.metadata.annotations?.["petset.dev/replace"]).toBe("recreate");
  });
});
