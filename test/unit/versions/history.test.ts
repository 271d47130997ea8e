import { describe, expect, it } from "vitest";
import type { PetSetVersion } from "../../../src/api/index.js";
import { VersionHistory } from "../../../src/versions/history.js";
import { content, petSet, version } from "./fixtures.js";

const names = (versions: readonly PetSetVersion[]) => versions.map((v) => v.metadata.name);

describe("VersionHistory ownership", () => {
  const leftover = version(7, "nginx:old", { ownerUid: "uid-of-deleted-web" });
  const orphan = version(4, "nginx:1.4", { ownerUid: null });
  const otherPetSet = { ...version(1, "x"), spec: { ...version(1, "x").spec, petSet: "db" } };
  const otherNamespace = { ...version(9), metadata: { ...version(9).metadata, namespace: "prod" } };

  it.each<[string, PetSetVersion[], string[], string[]]>([
    ["owned, sorted by number", [version(3), version(1), version(2)], ["web-v1", "web-v2", "web-v3"], []],
    ["leftover of a deleted PetSet with the same name is ignored", [version(1), leftover], ["web-v1"], []],
    ["orphan with matching labels is adoptable", [version(1), orphan], ["web-v1"], ["web-v4"]],
    [
      "orphan being deleted is not adoptable",
      [version(4, "nginx:1.4", { ownerUid: null, deleting: true })],
      [],
      [],
    ],
    [
      "orphan named for another number is not adoptable",
      [version(4, "nginx:1.4", { ownerUid: null, name: "web-v5" })],
      [],
      [],
    ],
    [
      "orphan of another PetSet is not adoptable",
      [{ ...otherPetSet, metadata: { ...orphan.metadata } }],
      [],
      [],
    ],
    ["version in another namespace is ignored", [otherNamespace], [], []],
  ])("%s", (_name, versions, owned, adoptable) => {
    const history = VersionHistory.of(petSet(), versions);
    expect(names(history.owned)).toEqual(owned);
    expect(names(history.adoptable)).toEqual(adoptable);
  });

  it("remembers every name, owned or not, so creates never collide", () => {
    const history = VersionHistory.of(petSet(), [version(1), leftover, orphan]);
    expect([...history.takenNames].sort()).toEqual(["web-v1", "web-v4", "web-v7"]);
  });

  it("owns nothing for a PetSet without uid", () => {
    const ps = petSet();
    ps.metadata.uid = undefined;
    expect(VersionHistory.of(ps, [version(1)]).owned).toEqual([]);
  });
});

describe("VersionHistory.nextNumber", () => {
  it.each<[string, number[], Record<string, number> | undefined, number]>([
    ["first version", [], undefined, 1],
    ["after the newest", [1, 2, 3], undefined, 4],
    ["gaps left by GC are never refilled", [5, 9], undefined, 10],
    ["status updateVersion beyond the cache (cache lagging)", [1, 2], { updateVersion: 3 }, 4],
    ["status currentVersion of a version deleted by hand", [], { currentVersion: 6 }, 7],
    ["lastCompleteVersion counts too", [2], { lastCompleteVersion: 8, currentVersion: 2 }, 9],
    ["status lower than the versions", [4], { currentVersion: 1, updateVersion: 2 }, 5],
  ])("%s", (_name, numbers, status, expected) => {
    const ps = petSet(status ? { status } : {});
    expect(
      VersionHistory.of(
        ps,
        numbers.map((n) => version(n)),
      ).nextNumber(),
    ).toBe(expected);
  });

  it("does not count leftovers of a deleted PetSet", () => {
    const history = VersionHistory.of(petSet(), [version(1), version(40, "x", { ownerUid: "other" })]);
    expect(history.nextNumber()).toBe(2);
  });
});

describe("VersionHistory lookups", () => {
  const v1 = version(1, "nginx:1.26");
  const v2 = version(2, "nginx:1.27");
  const v3 = version(3, "nginx:1.26");
  const history = VersionHistory.of(petSet(), [v3, v1, v2]);

  it("newest is the highest number", () => {
    expect(history.newest()?.metadata.name).toBe("web-v3");
    expect(VersionHistory.of(petSet(), []).newest()).toBeUndefined();
  });

  it.each<[number, string | undefined]>([
    [1, "web-v1"],
    [3, "web-v3"],
    [4, undefined],
  ])("byNumber(%d) -> %s", (n, expected) => {
    expect(history.byNumber(n)?.metadata.name).toBe(expected);
  });

  it("byHash lists newest first", () => {
    expect(names(history.byHash(v1.spec.hash))).toEqual(["web-v3", "web-v1"]);
    expect(history.byHash("0000000000")).toEqual([]);
  });

  it("withContent compares recomputed canonical content, newest first", () => {
    const defaulted = content("nginx:1.26", { imagePullPolicy: "IfNotPresent", resources: {} });
    expect(names(history.withContent(defaulted))).toEqual(["web-v3", "web-v1"]);
  });

  it("withContent still matches a version whose stored hash came from other rules", () => {
    const stale = { ...v2, spec: { ...v2.spec, hash: "written-by-an-old-release" } };
    expect(names(VersionHistory.of(petSet(), [stale]).withContent(content("nginx:1.27")))).toEqual([
      "web-v2",
    ]);
  });
});
