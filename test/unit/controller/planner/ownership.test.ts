/**
 * decideOwnership: which pods and claims a PetSet adopts, releases, leaves alone, and which
 * pet names it must not create (the rules are in src/controller/planner/ownership.ts).
 */
import type { V1OwnerReference } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Labels, type PetSetSpecInput } from "../../../../src/api/index.js";
import { planRollout } from "../../../../src/controller/planner/index.js";
import {
  decideOwnership,
  type OwnedObjectMeta,
  petOrdinal,
  selectorMatches,
} from "../../../../src/controller/planner/ownership.js";
import { makePetSet, SET } from "./fixtures.js";
import { at, type Case, moves, NOW, plan, policies, v1, withPolicy } from "./plan-helpers.js";

const ours: V1OwnerReference = {
  apiVersion: "petset.dev/v1alpha1",
  kind: "PetSet",
  name: SET,
  uid: "set-uid",
  controller: true,
  blockOwnerDeletion: true,
};
const oldIncarnation: V1OwnerReference = { ...ours, uid: "old-uid" };
const statefulSet: V1OwnerReference = {
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  name: SET,
  uid: "sts-uid",
  controller: true,
};
const nonController: V1OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "cm-uid" };

function obj(name: string, opts: Partial<OwnedObjectMeta> = {}): OwnedObjectMeta {
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: "7",
    labels: { app: SET, [Labels.petSet]: SET },
    ownerReferences: [],
    deleting: false,
    ...opts,
  };
}

interface Row {
  name: string;
  pod: OwnedObjectMeta;
  deleting?: boolean;
  want: "owned" | "adopt" | "release" | "conflict" | "ignore";
  blocked: boolean;
  reason?: string;
}

const podRows: Row[] = [
  {
    name: "owned and selected",
    pod: obj("web-0", { ownerReferences: [ours] }),
    want: "owned",
    blocked: false,
  },
  { name: "orphan pet is adopted", pod: obj("web-1"), want: "adopt", blocked: true },
  {
    name: "orphan beyond replicas is adopted (then scaled down)",
    pod: obj("web-7"),
    want: "adopt",
    blocked: true,
  },
  {
    name: "orphan with a non-controller owner is adopted, that reference kept",
    pod: obj("web-1", { ownerReferences: [nonController] }),
    want: "adopt",
    blocked: true,
  },
  {
    name: "orphan not matching the selector is a conflict",
    pod: obj("web-1", { labels: { app: "debug", [Labels.petSet]: SET } }),
    want: "conflict",
    reason: "PodNotSelected",
    blocked: true,
  },
  {
    name: "owned pod that stopped matching is released",
    pod: obj("web-2", { ownerReferences: [ours], labels: { app: "debug", [Labels.petSet]: SET } }),
    want: "release",
    blocked: false,
  },
  {
    name: "owned pod not named as a pet is released",
    pod: obj("web-x", { ownerReferences: [ours] }),
    want: "release",
    blocked: false,
  },
  {
    name: "pod of a StatefulSet is never touched",
    pod: obj("web-0", { ownerReferences: [statefulSet] }),
    want: "conflict",
    reason: "PodOwnedByOther",
    blocked: true,
  },
  {
    name: "pod of an older PetSet of the same name is never touched",
    pod: obj("web-0", { ownerReferences: [oldIncarnation] }),
    want: "conflict",
    reason: "PodOwnedByOther",
    blocked: true,
  },
  {
    name: "another controller's pod not named as a pet is none of our business",
    pod: obj("web-abc", { ownerReferences: [statefulSet] }),
    want: "ignore",
    blocked: false,
  },
  { name: "orphan of another set's name is ignored", pod: obj("webby-0"), want: "ignore", blocked: false },
  {
    name: "orphan with a leading-zero ordinal is not a pet",
    pod: obj("web-01"),
    want: "ignore",
    blocked: false,
  },
  {
    name: "terminating orphan is not adopted but holds the name",
    pod: obj("web-1", { deleting: true }),
    want: "ignore",
    blocked: true,
  },
  {
    name: "a PetSet being deleted adopts nothing",
    pod: obj("web-1"),
    deleting: true,
    want: "ignore",
    blocked: true,
  },
  {
    name: "a PetSet being deleted releases nothing",
    pod: obj("web-2", { ownerReferences: [ours], labels: { app: "debug" } }),
    deleting: true,
    want: "ignore",
    blocked: false,
  },
];

describe("decideOwnership: pods", () => {
  it.each(podRows)("$name", (row) => {
    const petSet = makePetSet({ replicas: 3 });
    if (row.deleting) petSet.metadata.deletionTimestamp = "2026-12-01T00:00:00Z";
    const d = decideOwnership({ petSet, pods: [row.pod], claims: [] });
    const got =
      d.ownedPods.length > 0
        ? "owned"
        : d.adoptPods.length > 0
          ? "adopt"
          : d.releasePods.length > 0
            ? "release"
            : d.conflicts.length > 0
              ? "conflict"
              : "ignore";
    expect(got).toBe(row.want);
    expect(d.blockedOrdinals.length > 0).toBe(row.blocked);
    if (row.reason !== undefined) expect(d.conflicts[0]?.reason).toBe(row.reason);
  });

  it("adoption writes the whole list: other references kept, ours added, with the read resourceVersion", () => {
    const d = decideOwnership({
      petSet: makePetSet(),
      pods: [obj("web-0", { ownerReferences: [nonController] })],
      claims: [],
    });
    expect(d.adoptPods).toEqual([
      { name: "web-0", uid: "uid-web-0", resourceVersion: "7", ownerReferences: [nonController, ours] },
    ]);
  });

  it("release removes only our reference, and the field when nothing is left", () => {
    const debug = { app: "debug" };
    const d = decideOwnership({
      petSet: makePetSet(),
      pods: [
        obj("web-0", { ownerReferences: [nonController, ours], labels: debug }),
        obj("web-1", { ownerReferences: [ours], labels: debug }),
      ],
      claims: [],
    });
    expect(d.releasePods.map((c) => c.ownerReferences)).toEqual([[nonController], null]);
  });

  it("a conflict names the pod and its owner", () => {
    const d = decideOwnership({
      petSet: makePetSet(),
      pods: [obj("web-0", { ownerReferences: [statefulSet] })],
      claims: [],
    });
    expect(d.conflicts[0]?.message).toContain("pod web-0 is controlled by StatefulSet/web (uid sts-uid)");
  });

  it("matchExpressions count as the selector", () => {
    const spec: Partial<PetSetSpecInput> = {
      selector: { matchExpressions: [{ key: "app", operator: "In", values: [SET] }] },
    };
    const d = decideOwnership({ petSet: makePetSet(spec), pods: [obj("web-0")], claims: [] });
    expect(d.adoptPods).toHaveLength(1);
  });
});

describe("decideOwnership: claims", () => {
  const vct = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }];
  const withPolicy2 = (whenDeleted: "Retain" | "Delete", whenScaled: "Retain" | "Delete" = "Retain") =>
    makePetSet({
      volumeClaimTemplates: vct,
      persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled },
    } as Partial<PetSetSpecInput>);

  it.each([
    {
      name: "whenDeleted=Delete adopts an orphan claim",
      policy: "Delete",
      claim: obj("data-web-0"),
      adopt: 1,
      release: 0,
    },
    {
      name: "whenDeleted=Retain leaves an orphan claim unowned",
      policy: "Retain",
      claim: obj("data-web-0"),
      adopt: 0,
      release: 0,
    },
    {
      name: "whenDeleted=Retain releases a claim we control (deleting the set keeps it)",
      policy: "Retain",
      claim: obj("data-web-0", { ownerReferences: [ours] }),
      adopt: 0,
      release: 1,
    },
    {
      name: "a claim of another template is ignored",
      policy: "Delete",
      claim: obj("logs-web-0"),
      adopt: 0,
      release: 0,
    },
    {
      name: "a terminating claim is not adopted",
      policy: "Delete",
      claim: obj("data-web-0", { deleting: true }),
      adopt: 0,
      release: 0,
    },
  ] as const)("$name", (row) => {
    const d = decideOwnership({ petSet: withPolicy2(row.policy), pods: [], claims: [row.claim] });
    expect(d.adoptClaims).toHaveLength(row.adopt);
    expect(d.releaseClaims).toHaveLength(row.release);
  });

  it("a claim another controller holds is foreign; a conflict only when a Delete policy cannot apply", () => {
    const claim = obj("data-web-0", { ownerReferences: [statefulSet] });
    const retain = decideOwnership({ petSet: withPolicy2("Retain"), pods: [], claims: [claim] });
    expect(retain.foreignClaims).toEqual(["data-web-0"]);
    expect(retain.conflicts).toEqual([]);
    const del = decideOwnership({ petSet: withPolicy2("Retain", "Delete"), pods: [], claims: [claim] });
    expect(del.conflicts.map((c) => c.reason)).toEqual(["ClaimOwnedByOther"]);
    expect(del.adoptClaims).toEqual([]);
  });
});

describe("names and selectors", () => {
  it.each([
    ["web-0", 0],
    ["web-12", 12],
    ["web-01", undefined],
    ["web-", undefined],
    ["web-a-1", undefined],
    ["webby-1", undefined],
  ] as const)("petOrdinal(web, %s) = %s", (name, want) => {
    expect(petOrdinal("web", name)).toBe(want);
  });

  it.each([
    [{ matchLabels: { a: "1" } }, { a: "1", b: "2" }, true],
    [{ matchLabels: { a: "1" } }, { a: "2" }, false],
    [{ matchExpressions: [{ key: "a", operator: "NotIn" as const, values: ["1"] }] }, { a: "2" }, true],
    [{ matchExpressions: [{ key: "a", operator: "Exists" as const }] }, {}, false],
    [{ matchExpressions: [{ key: "a", operator: "DoesNotExist" as const }] }, {}, true],
  ])("selector %j on %j: %s", (selector, labels, want) => {
    expect(selectorMatches(selector, labels)).toBe(want);
  });
});

describe("planRollout with blocked ordinals", () => {
  for (const policy of policies) {
    const p = withPolicy(policy);
    it(`${policy}: creates no pet whose name a foreign pod holds`, () => {
      const input = p({ pods: at(v1, [0]), versions: [v1] });
      expect(moves(plan(input))).toContain("create web-1@v1");
      const held = planWithBlocked(input, [1]);
      expect(moves(held)).not.toContain("create web-1@v1");
      // Parallel goes on with the others; OrderedReady waits for the blocked one.
      expect(moves(held).includes("create web-2@v1")).toBe(policy === "Parallel");
      expect(held.status.replicas).toBe(1);
    });
  }

  it("keeps the claims of a blocked ordinal out of retention", () => {
    const claims = [{ name: "data-web-5", uid: "c5", resourceVersion: "1", labels: {} }];
    const spec = {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" },
    } as const;
    const free = plan({ spec, pods: at(v1, [0, 1, 2]), claims });
    expect(moves(free)).toContain("deleteClaim data-web-5 (whenScaled)");
    const held = planWithBlocked({ spec, pods: at(v1, [0, 1, 2]), claims }, [5]);
    expect(moves(held)).not.toContain("deleteClaim data-web-5 (whenScaled)");
    const foreign = plan({ spec, pods: at(v1, [0, 1, 2]), claims: [{ ...claims[0]!, foreign: true }] });
    expect(moves(foreign)).toEqual([]);
  });
});

function planWithBlocked(c: Case, blockedOrdinals: number[]) {
  return planRollout({
    petSet: makePetSet({ replicas: 3, ...c.spec }, c.status),
    versions: c.versions ?? [v1],
    pods: c.pods ?? [],
    claims: c.claims ?? [],
    now: c.now ?? NOW,
    blockedOrdinals,
  });
}
