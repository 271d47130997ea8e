import { describe, expect, it } from "vitest";
import { historyTable, versionRole } from "../../../src/cli/plugin/format-history.js";
import { describeVersion } from "../../../src/cli/plugin/format-version.js";
import { history, NOW, petSet } from "./fixtures.js";

const rollingBack = petSet({
  image: "nginx:1.26",
  status: {
    observedGeneration: 5,
    replicas: 3,
    readyReplicas: 2,
    updatedReplicas: 1,
    currentVersion: 3,
    updateVersion: 4,
  },
});
const pods = new Map([
  [3, 2],
  [4, 1],
]);

describe("history table (golden, clock fixed at 2025-06-01T12:00:00Z)", () => {
  it("lists versions oldest first with role, pods and <none> for missing values", async () => {
    const text = historyTable({ petSet: rollingBack, versions: history(), podsByVersion: pods, now: NOW });
    await expect(text).toMatchFileSnapshot("./golden/history.txt");
  });

  it("adds HASH with -o wide", async () => {
    const text = historyTable(
      { petSet: rollingBack, versions: history(), podsByVersion: pods, now: NOW },
      true,
    );
    await expect(text).toMatchFileSnapshot("./golden/history-wide.txt");
  });

  it("describes one version with its delta and content", async () => {
    const v4 = history()[3]!;
    await expect(describeVersion(rollingBack, v4, 1, NOW)).toMatchFileSnapshot("./golden/version-4.txt");
  });
});

describe("versionRole", () => {
  it.each([
    [{ currentVersion: 3, updateVersion: 4 }, 3, "current"],
    [{ currentVersion: 3, updateVersion: 4 }, 4, "update"],
    [{ currentVersion: 4, updateVersion: 4 }, 4, "current,update"],
    [{ currentVersion: 4, updateVersion: 4 }, 2, ""],
    [{}, 1, ""],
  ])("status %j, version %i -> %j", (status, n, role) => {
    expect(versionRole(petSet({ status }), n)).toBe(role);
  });
});
