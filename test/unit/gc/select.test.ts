import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { selectVersionsToDelete, type VersionGcInput } from "../../../src/gc/select.js";
import { version } from "../versions/fixtures.js";

const versions = (...numbers: number[]) => numbers.map((n) => version(n));
const names = (...numbers: number[]) => numbers.map((n) => `web-v${n}`);

function input(overrides: Partial<VersionGcInput> & { versions: PetSetVersion[] }): VersionGcInput {
  return { versionsInUseByPods: [], revisionHistoryLimit: 10, ...overrides };
}

describe("selectVersionsToDelete", () => {
  it.each<[string, VersionGcInput, string[]]>([
    [
      "nothing to do under the limit",
      input({ versions: versions(1, 2, 3), currentVersion: 3, updateVersion: 3 }),
      [],
    ],
    [
      "keeps the limit of non-live versions, newest first, deletes oldest first",
      input({
        versions: versions(1, 2, 3, 4, 5, 6),
        currentVersion: 6,
        updateVersion: 6,
        revisionHistoryLimit: 2,
      }),
      names(1, 2, 3),
    ],
    [
      "limit 0 keeps only live versions",
      input({ versions: versions(1, 2, 3, 4), currentVersion: 2, updateVersion: 4, revisionHistoryLimit: 0 }),
      names(1, 3),
    ],
    [
      "never deletes a version a pod runs, however old",
      input({
        versions: versions(1, 2, 3, 4),
        currentVersion: 4,
        updateVersion: 4,
        versionsInUseByPods: [1, 4, 1],
        revisionHistoryLimit: 0,
      }),
      names(2, 3),
    ],
    [
      "live versions do not use up the limit",
      input({
        versions: versions(1, 2, 3, 4, 5),
        currentVersion: 1,
        updateVersion: 5,
        revisionHistoryLimit: 1,
      }),
      names(2, 3),
    ],
    [
      "always keeps the newest version, even before the status names it",
      input({ versions: versions(1, 2, 3), currentVersion: 1, updateVersion: 1, revisionHistoryLimit: 0 }),
      names(2),
    ],
    [
      "keeps lastCompleteVersion, the autoRollback target",
      input({
        versions: versions(1, 2, 3, 4),
        currentVersion: 4,
        updateVersion: 4,
        lastCompleteVersion: 2,
        revisionHistoryLimit: 0,
      }),
      names(1, 3),
    ],
    [
      "versions being deleted are neither counted nor deleted again",
      input({
        versions: [version(1), version(2, undefined, { deleting: true }), version(3), version(4)],
        currentVersion: 4,
        updateVersion: 4,
        revisionHistoryLimit: 1,
      }),
      names(1),
    ],
    [
      "status numbers of versions that no longer exist change nothing",
      input({ versions: versions(3, 4), currentVersion: 1, updateVersion: 2, revisionHistoryLimit: 0 }),
      names(3),
    ],
    ["no versions", input({ versions: [], currentVersion: 1 }), []],
    [
      "unsorted input gives an oldest-first result",
      input({
        versions: versions(5, 1, 3, 2, 4),
        currentVersion: 5,
        updateVersion: 5,
        revisionHistoryLimit: 1,
      }),
      names(1, 2, 3),
    ],
    [
      "a negative limit counts as 0",
      input({ versions: versions(1, 2), currentVersion: 2, updateVersion: 2, revisionHistoryLimit: -3 }),
      names(1),
    ],
    [
      "an infinite limit keeps everything",
      input({ versions: versions(1, 2), currentVersion: 2, revisionHistoryLimit: Number.POSITIVE_INFINITY }),
      [],
    ],
  ])("%s", (_name, given, expected) => {
    expect(selectVersionsToDelete(given)).toEqual(expected);
  });

  it("does not mutate its input", () => {
    const given = input({ versions: versions(3, 1, 2), revisionHistoryLimit: 0 });
    const before = structuredClone(given);
    selectVersionsToDelete(given);
    expect(given).toEqual(before);
  });
});
