import { describe, expect, it } from "vitest";
import type { PetSet } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import { PluginError } from "../../../src/cli/plugin/errors.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { history, NOW, petSet, version } from "./fixtures.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function setup(options: { tty?: boolean } = {}) {
  const api = new FakePetSetApi();
  api.put(
    petSet({
      status: {
        observedGeneration: 5,
        replicas: 3,
        readyReplicas: 3,
        updatedReplicas: 3,
        currentVersion: 3,
        updateVersion: 3,
      },
    }),
  );
  api.versions = history().slice(0, 3);
  api.pods = new Map([[3, 3]]);
  const connections: unknown[] = [];
  const run = async (...args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const deps: PluginDeps = {
      io: {
        stdout: {
          write: (s) => {
            out.push(s);
          },
          isTTY: options.tty ?? false,
          columns: 100,
        },
        stderr: {
          write: (s) => {
            err.push(s);
          },
          isTTY: false,
        },
      },
      clock: { now: () => NOW },
      connect: (flags) => {
        connections.push(flags);
        return api;
      },
    };
    const code = await runPlugin(args, deps);
    return { code, stdout: out.join(""), stderr: err.join("") };
  };
  return { api, run, connections };
}

/** Stands in for the controller: records a version for the content a patch rolled back to. */
function recordRollbacks(api: FakePetSetApi) {
  api.onPatched = (p: PetSet) => {
    const n = Math.max(...api.versions.map((v) => v.spec.version)) + 1;
    const image = p.spec.template.spec.containers[0]?.image ?? "";
    const same = api.versions.find((v) => v.spec.template.spec.containers[0]?.image === image);
    setTimeout(
      () =>
        api.addVersion(
          version({ n, image, created: "2025-06-01T12:00:00Z", rollbackOf: same?.spec.version }),
        ),
      5,
    );
  };
}

describe("kubectl petset history", () => {
  it("prints the table, passing the connection flags through", async () => {
    const { run, connections } = setup();
    const r = await run("history", "web", "-n", "default", "--kubeconfig", "/tmp/kc", "--context", "ctx");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout.split("\n")[0]).toMatch(
      /^VERSION\s+ROLE\s+GENERATION\s+AGE\s+CHANGED-BY\s+ROLLBACK-OF\s+PODS\s+CHANGE-CAUSE$/,
    );
    expect(r.stdout).toMatch(/^3\s+current,update\s+4\s+3h\s+argocd-controller\s+<none>\s+3\s+image app/m);
    expect(connections).toEqual([{ namespace: "default", kubeconfig: "/tmp/kc", context: "ctx" }]);
  });

  it("prints a List with -o json and one version with --version", async () => {
    const { run } = setup();
    const list = JSON.parse((await run("history", "web", "-o", "json")).stdout) as {
      kind: string;
      items: unknown[];
    };
    expect(list.kind).toBe("List");
    expect(list.items).toHaveLength(3);
    const one = await run("history", "web", "--version", "v2");
    expect(one.stdout).toContain("Name:         web-v2");
    const yaml = await run("history", "web", "--version", "2", "-o", "yaml");
    expect(yaml.stdout).toMatch(/^apiVersion: petset.dev\/v1alpha1\nkind: PetSetVersion\n/);
  });

  it("reports a missing PetSet or version in one line, exit 1", async () => {
    const { run, api } = setup();
    expect(await run("history", "db")).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: petset "db" not found in namespace "default"\n',
    });
    api.versions = api.versions.slice(1);
    expect(await run("history", "web", "--version", "1")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'error: version 1 of petset "web" not found: it may have been garbage-collected; kubectl petset history web lists the versions kept\n',
    });
  });

  it("rejects a bad -o value and unknown flags without a stack trace; --help exits 0", async () => {
    const { run } = setup();
    const bad = await run("history", "web", "-o", "xml");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: option '-o, --output <format>' argument 'xml' is invalid/);
    expect(bad.stderr).not.toMatch(/\bat .*\.js/);
    const help = await run("rollback", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--to-version <n>/);
    expect(help.stdout).toMatch(/-n, --namespace <namespace>/);
  });
});

describe("kubectl petset diff", () => {
  it("diffs A against the update version by default", async () => {
    const { run } = setup();
    const r = await run("diff", "web", "1", "--color=never");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--- web-v1\n+++ web-v3\n");
    expect(r.stdout).toContain("-    - image: nginx:1.25\n+    - image: nginx:1.27\n");
  });

  it("notes equal content on stderr", async () => {
    const { run, api } = setup();
    api.versions = history();
    const r = await run("diff", "web", "2", "4");
    expect(r).toEqual({
      code: 0,
      stdout: "",
      stderr: 'versions 2 and 4 of petset "web" have the same content\n',
    });
  });
});

describe("kubectl petset rollback", () => {
  it("patches to the previous distinct version with a resourceVersion and waits for the new version", async () => {
    const { run, api } = setup();
    recordRollbacks(api);
    const r = await run("rollback", "web");
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web rolled back to version 2\ncreated version web-v4 (rollbackOf 2)\n",
      stderr: "",
    });
    expect(api.patches).toHaveLength(1);
    expect(api.patches[0]?.options.resourceVersion).toBe("100");
    const stored = await api.getPetSet("web");
    expect(stored.spec.template.spec.containers[0]?.image).toBe("nginx:1.26");
    expect(stored.metadata.annotations?.["kubernetes.io/change-cause"]).toBe("rollback to version 2");
  });

  it("re-reads and retries after a conflict", async () => {
    const { run, api } = setup();
    api.failNextPatches.push(new PluginError("Conflict", "Error from server (Conflict): modified"));
    api.setStatus("web", {}); // bumps the resourceVersion: the retry must use the new one
    const r = await run("rollback", "web", "--to-version", "1", "--wait=false");
    expect(r.code).toBe(0);
    expect(api.patches.map((p) => p.options.resourceVersion)).toEqual(["101", "101"]);
    expect((await api.getPetSet("web")).spec.template.spec.containers[0]?.image).toBe("nginx:1.25");
  });

  it("gives up after repeated conflicts with the server's message", async () => {
    const { run, api } = setup();
    for (let i = 0; i < 5; i++)
      api.failNextPatches.push(new PluginError("Conflict", "Error from server (Conflict): modified"));
    const r = await run("rollback", "web", "--wait=false");
    expect(r).toMatchObject({ code: 1, stderr: "error: Error from server (Conflict): modified\n" });
  });

  it("changes nothing on --dry-run and shows the diff", async () => {
    const { run, api } = setup();
    const r = await run("rollback", "web", "--to-version", "web-v1", "--dry-run");
    expect(api.patches).toHaveLength(0);
    expect(r.stdout).toMatch(
      /^petset.petset.dev\/web rolled back to version 1 \(dry run\)\n--- web \(spec now\)\n\+\+\+ web-v1\n/,
    );
  });

  it("skips when the spec already matches, and exits 2 when the controller never records the version", async () => {
    const { run } = setup();
    expect((await run("rollback", "web", "--to-version", "3")).stdout).toBe(
      "petset.petset.dev/web skipped rollback (the template already matches version 3)\n",
    );
    const r = await run("rollback", "web", "--timeout", "50ms");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: timed out after 50ms waiting for the controller to record the rollback/,
    );
  });

  it("explains an unknown version", async () => {
    const { run } = setup();
    const r = await run("rollback", "web", "--to-version", "7");
    expect(r).toMatchObject({
      code: 1,
      stderr:
        'error: version 7 of petset "web" does not exist: the newest is 3; kubectl petset history web lists the versions kept\n',
    });
  });
});

describe("kubectl petset pause, resume, restart", () => {
  it("merge-patches spec.paused and says when nothing changes", async () => {
    const { run, api } = setup();
    expect((await run("pause", "web")).stdout).toBe("petset.petset.dev/web paused\n");
    expect((await run("pause", "web")).stdout).toBe("petset.petset.dev/web already paused\n");
    expect((await run("resume", "web")).stdout).toBe("petset.petset.dev/web resumed\n");
    expect(api.patches.map((p) => p.patch)).toEqual([
      { spec: { paused: true } },
      { spec: { paused: false } },
    ]);
  });

  it("sets petset.dev/restartedAt on the template to now", async () => {
    const { run, api } = setup();
    expect((await run("restart", "web")).stdout).toBe("petset.petset.dev/web restarted\n");
    expect(api.patches[0]?.patch).toEqual({
      spec: { template: { metadata: { annotations: { "petset.dev/restartedAt": "2025-06-01T12:00:00Z" } } } },
    });
  });
});

describe("kubectl petset status", () => {
  const rolling = {
    observedGeneration: 5,
    updatedReplicas: 1,
    currentVersion: 2,
    updateVersion: 3,
    conditions: [{ type: "Progressing", status: "True" as const, reason: "RollingOut" }],
  };

  it("reports once without --watch: exit 0 complete, 2 in progress, 1 failed", async () => {
    const { run, api } = setup();
    api.setStatus("web", {
      conditions: [{ type: "Progressing", status: "True", reason: "RolloutComplete" }],
    });
    expect(await run("status", "web")).toEqual({
      code: 0,
      stdout: 'petset "web": rollout complete: 3 of 3 pods at version 3, 3 ready\n',
      stderr: "",
    });
    api.setStatus("web", rolling);
    expect((await run("status", "web")).code).toBe(2);
    api.setStatus("web", {
      conditions: [
        {
          type: "Progressing",
          status: "False",
          reason: "ProgressDeadlineExceeded",
          message: "web-2 never Ready",
        },
      ],
    });
    expect((await run("status", "web")).code).toBe(1);
  });

  it("prints a line per change with --watch and exits 0 on completion", async () => {
    const { run, api } = setup();
    api.setStatus("web", rolling);
    setTimeout(() => api.setStatus("web", { updatedReplicas: 2 }), 5);
    setTimeout(() => api.setStatus("web", { updatedReplicas: 2 }), 10); // no visible change: no line
    setTimeout(
      () =>
        api.setStatus("web", {
          updatedReplicas: 3,
          currentVersion: 3,
          conditions: [{ type: "Progressing", status: "True", reason: "RolloutComplete" }],
        }),
      15,
    );
    const r = await run("status", "web", "--watch");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      'petset "web": rolling out version 2 -> 3: 1 of 3 pods updated, 3 of 3 ready (RollingOut)',
      'petset "web": rolling out version 2 -> 3: 2 of 3 pods updated, 3 of 3 ready (RollingOut)',
      'petset "web": rollout complete: 3 of 3 pods at version 3, 3 ready',
      "",
    ]);
  });

  it("exits 1 with the reason on ProgressDeadlineExceeded and 2 on timeout", async () => {
    const { run, api } = setup();
    api.setStatus("web", rolling);
    const timedOut = await run("status", "web", "--timeout", "30ms");
    expect(timedOut.code).toBe(2);
    expect(timedOut.stderr).toBe(
      'error: timed out after 30ms waiting for the rollout of petset "web": rolling out version 2 -> 3: 1 of 3 pods updated, 3 of 3 ready (RollingOut)\n',
    );
    setTimeout(
      () =>
        api.setStatus("web", {
          conditions: [
            {
              type: "Progressing",
              status: "False",
              reason: "ProgressDeadlineExceeded",
              message: "web-2 never Ready",
            },
          ],
        }),
      5,
    );
    const failed = await run("status", "web", "-w");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'error: petset "web": rollout failed: ProgressDeadlineExceeded: web-2 never Ready\n',
    );
  });

  it("redraws a progress bar in place on a terminal", async () => {
    const { run, api } = setup({ tty: true });
    api.setStatus("web", rolling);
    setTimeout(
      () =>
        api.setStatus("web", {
          updatedReplicas: 3,
          currentVersion: 3,
          conditions: [{ type: "Progressing", status: "True", reason: "RolloutComplete" }],
        }),
      5,
    );
    const r = await run("status", "web", "--watch");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\r\x1b[2Kweb  [███████░░░░░░░░░░░░░]  1/3 updated");
    expect(r.stdout.endsWith('\npetset "web": rollout complete: 3 of 3 pods at version 3, 3 ready\n')).toBe(
      true,
    );
  });
});
