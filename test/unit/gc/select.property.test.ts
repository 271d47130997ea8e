import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { selectVersionsToDelete, type VersionGcInput } from "../../../src/gc/select.js";
import { version } from "../versions/fixtures.js";

/** A history: distinct version numbers, some being deleted, status and pod numbers drawn around them. */
const gcInput: fc.Arbitrary<VersionGcInput> = fc
  .record({
    numbers: fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 25 }),
    deleting: fc.array(fc.boolean(), { maxLength: 25 }),
    currentVersion: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
    updateVersion: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
    lastCompleteVersion: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
    versionsInUseByPods: fc.array(fc.integer({ min: 1, max: 45 }), { maxLength: 10 }),
    revisionHistoryLimit: fc.integer({ min: 0, max: 12 }),
  })
  .map(({ numbers, deleting, ...rest }) => ({
    ...rest,
    versions: numbers.map((n, i) => version(n, `img:${n}`, { deleting: deleting[i] ?? false })),
  }));

const present = (versions: readonly PetSetVersion[]) => versions.filter((v) => !v.metadata.deletionTimestamp);

function liveNumbers(input: VersionGcInput): Set<number> {
  const newest = Math.max(0, ...present(input.versions).map((v) => v.spec.version));
  return new Set(
    [
      input.currentVersion,
      input.updateVersion,
      input.lastCompleteVersion,
      newest,
      ...input.versionsInUseByPods,
    ].filter((n): n is number => n !== undefined && n > 0),
  );
}

const byName = (versions: readonly PetSetVersion[]) =>
  new Map(versions.map((v) => [v.metadata.name ?? "", v]));

describe("selectVersionsToDelete properties", () => {
  it("never deletes a live version (current, update, last complete, newest, or run by a pod)", () => {
    fc.assert(
      fc.property(gcInput, (input) => {
        const live = liveNumbers(input);
        const versions = byName(input.versions);
        for (const name of selectVersionsToDelete(input)) {
          expect(live.has(versions.get(name)?.spec.version ?? -1)).toBe(false);
        }
      }),
    );
  });

  it("never keeps more than the live versions plus the limit", () => {
    fc.assert(
      fc.property(gcInput, (input) => {
        const deleted = new Set(selectVersionsToDelete(input));
        const kept = present(input.versions).filter((v) => !deleted.has(v.metadata.name ?? ""));
        const live = liveNumbers(input);
        const liveKept = kept.filter((v) => live.has(v.spec.version)).length;
        expect(kept.length).toBeLessThanOrEqual(liveKept + input.revisionHistoryLimit);
        // ...and exactly that many when there is enough history.
        const nonLive = present(input.versions).length - liveKept;
        expect(kept.length).toBe(liveKept + Math.min(nonLive, input.revisionHistoryLimit));
      }),
    );
  });

  it("deletes only versions that exist and are not already being deleted, each once", () => {
    fc.assert(
      fc.property(gcInput, (input) => {
        const deleted = selectVersionsToDelete(input);
        const existing = new Set(present(input.versions).map((v) => v.metadata.name));
        expect(deleted.every((name) => existing.has(name))).toBe(true);
        expect(new Set(deleted).size).toBe(deleted.length);
      }),
    );
  });

  it("orders the result oldest first, and deletes older before newer history", () => {
    fc.assert(
      fc.property(gcInput, (input) => {
        const versions = byName(input.versions);
        const deleted = selectVersionsToDelete(input).map((name) => versions.get(name)?.spec.version ?? 0);
        expect(deleted).toEqual([...deleted].sort((a, b) => a - b));
        // Every kept non-live version is newer than every deleted one.
        const live = liveNumbers(input);
        const keptNonLive = present(input.versions)
          .map((v) => v.spec.version)
          .filter((n) => !live.has(n) && !deleted.includes(n));
        if (deleted.length > 0 && keptNonLive.length > 0) {
          expect(Math.min(...keptNonLive)).toBeGreaterThan(Math.max(...deleted));
        }
      }),
    );
  });

  it("is idempotent: running again on the remaining versions deletes nothing", () => {
    fc.assert(
      fc.property(gcInput, (input) => {
        const deleted = new Set(selectVersionsToDelete(input));
        const remaining = input.versions.filter((v) => !deleted.has(v.metadata.name ?? ""));
        expect(selectVersionsToDelete({ ...input, versions: remaining })).toEqual([]);
      }),
    );
  });

  it("does not depend on the order of the input", () => {
    fc.assert(
      fc.property(gcInput, fc.context(), (input, ctx) => {
        const shuffled = [...input.versions].reverse();
        ctx.log(`versions ${shuffled.map((v) => v.spec.version).join(",")}`);
        expect(selectVersionsToDelete({ ...input, versions: shuffled })).toEqual(
          selectVersionsToDelete(input),
        );
      }),
    );
  });
});
