/**
 * `kubectl petset history NAME --timeline`: the versions' durable records in time order.
 */
import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { timelineOf, timelineTable } from "../../../src/cli/plugin/format-timeline.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { history, NOW, petSet } from "./fixtures.js";

function withFacts(v: PetSetVersion, status: PetSetVersion["status"]): PetSetVersion {
  return { ...v, status };
}

/** Versions 1–3 rolled out one after the other; 3 then broke and was given up for 4. */
function recorded(): PetSetVersion[] {
  const [v1, v2, v3, v4] = history();
  return [
    withFacts(v1!, {
      observedAt: "2025-05-20T12:00:01Z",
      becameCurrentAt: "2025-05-20T12:01:00Z",
      fullyRolledOutAt: "2025-05-20T12:01:00Z",
    }),
    withFacts(v2!, {
      observedAt: "2025-05-30T09:30:01Z",
      rolloutStartedAt: "2025-05-30T09:30:02Z",
      completedAt: "2025-05-30T09:35:00Z",
      becameCurrentAt: "2025-05-30T09:35:00Z",
      fullyRolledOutAt: "2025-05-30T09:35:00Z",
    }),
    withFacts(v3!, {
      observedAt: "2025-06-01T09:00:01Z",
      rolloutStartedAt: "2025-06-01T09:00:02Z",
      deadlineExceededAt: "2025-06-01T09:10:02Z",
      rolledBackAt: "2025-06-01T11:58:29Z",
      supersededAt: "2025-06-01T11:58:31Z",
      supersededBy: 4,
    }),
    withFacts(v4!, { observedAt: "2025-06-01T11:58:31Z", rolloutStartedAt: "2025-06-01T11:58:31Z" }),
  ];
}

describe("timelineOf", () => {
  it("orders every recorded moment by time, then version, creation first", () => {
    const entries = timelineOf(recorded());
    expect(entries.map((e) => `${e.version} ${e.what}`)).toEqual([
      "1 created",
      "1 observed",
      "1 becameCurrent",
      "1 fullyRolledOut",
      "2 created",
      "2 observed",
      "2 rolloutStarted",
      "2 completed",
      "2 becameCurrent",
      "2 fullyRolledOut",
      "3 created",
      "3 observed",
      "3 rolloutStarted",
      "3 deadlineExceeded",
      "3 rolledBack",
      "4 created",
      "3 superseded",
      "4 observed",
      "4 rolloutStarted",
    ]);
  });

  it("says who made each version and why, and what superseded a version", () => {
    const entries = timelineOf(recorded());
    expect(entries.find((e) => e.version === 3 && e.what === "created")?.detail).toBe(
      "by argocd-controller; image app: nginx:1.26 -> nginx:1.27",
    );
    expect(entries.find((e) => e.version === 4 && e.what === "created")?.detail).toBe(
      "by kubectl-petset; rollback of version 2; rollback to version 2",
    );
    expect(entries.find((e) => e.what === "superseded")?.detail).toBe("version 4 took over its rollout");
  });

  it("a version without recorded facts still shows when and by whom it was made", () => {
    const [v1] = history();
    expect(timelineOf([v1!])).toEqual([
      {
        time: "2025-05-20T12:00:00.000Z",
        version: 1,
        what: "created",
        detail: "by kubectl-client-side-apply; initial version",
      },
    ]);
    expect(timelineTable(timelineOf([v1!]))).toBe(
      "TIME                   VERSION   EVENT     DETAIL\n" +
        "2025-05-20T12:00:00Z   1         created   by kubectl-client-side-apply; initial version\n",
    );
  });
});

describe("kubectl petset history --timeline", () => {
  async function run(...args: string[]) {
    const api = new FakePetSetApi();
    api.put(petSet({}));
    api.versions = recorded();
    const out: string[] = [];
    const err: string[] = [];
    const code = await runPlugin(args, {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: false, columns: 100 },
        stderr: { write: (s) => void err.push(s), isTTY: false },
      },
      clock: { now: () => NOW },
      connect: () => api,
    });
    return { code, stdout: out.join(""), stderr: err.join("") };
  }

  it("prints the table, and JSON for tooling", async () => {
    const table = await run("history", "web", "--timeline");
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toBe("TIME                   VERSION   EVENT              DETAIL");
    expect(table.stdout).toContain("2025-06-01T09:10:02Z   3         deadlineExceeded   no progress");
    const json = await run("history", "web", "--timeline", "-o", "json");
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout) as { version: number; what: string }[];
    expect(entries).toHaveLength(19);
    expect(entries.at(-1)).toMatchObject({ version: 4, what: "rolloutStarted" });
  });

  it("refuses --timeline with --version in one line", async () => {
    const r = await run("history", "web", "--timeline", "--version", "2");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: --timeline and --version cannot be used together: pick one\n");
  });
});
