/**
 * Generators of hostile PetSets, derived from the PetSet CRD schema (crds/petsets.petset.dev.yaml):
 * each case starts from a valid manifest and breaks it in one way a user, a script or an
 * attacker could: wrong types, out-of-range and huge numbers, invalid names and label values,
 * duplicate container names, templates near the size limits, deep nesting, unicode, selectors
 * that do not match, hostile volumeClaimTemplates, unknown fields. A case carries the field it
 * breaks: a rejection, or the condition and Event the controller shows, must name it.
 */
import fc from "fast-check";
import { API_VERSION, PETSET_KIND } from "../../src/api/index.js";

export type Category =
  | "wrong-type"
  | "out-of-range"
  | "invalid-name"
  | "invalid-label"
  | "duplicate-container"
  | "size-limit"
  | "deep-nesting"
  | "unicode"
  | "selector-mismatch"
  | "volume-claim-template"
  | "unknown-field";

export interface HostileCase {
  /** The file name the case is sent from (kubectl names it in every error). */
  id: string;
  category: Category;
  /** The field the case breaks, as kube spells a path (`spec.replicas`): any of these must be named. */
  fields: string[];
  manifest: Record<string, unknown>;
}

type Json = unknown;
type Mutation = { category: Category; fields: string[]; apply: (m: Manifest) => void };
type Manifest = Record<string, Json> & { metadata: Record<string, Json>; spec: Record<string, Json> };

/** A valid PetSet of one pet: what each hostile case breaks. */
export function baseManifest(name: string): Manifest {
  return {
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      podManagementPolicy: "Parallel",
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "app", image: "nginx:1.26" }] },
      },
    },
  };
}

/** Sets `path` (dotted, `[n]` for list items) in `obj`, creating objects on the way. */
export function setPath(obj: Record<string, Json>, path: string, value: Json): void {
  const keys = path
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((k) => k !== "");
  let cur: Record<string, Json> = obj;
  for (const k of keys.slice(0, -1)) {
    const next = cur[k];
    if (typeof next !== "object" || next === null) cur[k] = {};
    cur = cur[k] as Record<string, Json>;
  }
  cur[keys[keys.length - 1] ?? ""] = value;
}

function container(m: Manifest): Record<string, Json> {
  const t = m.spec.template as { spec: { containers: Record<string, Json>[] } };
  return t.spec.containers[0] as Record<string, Json>;
}

// Paths by their schema type: a value of any other type is wrong.
const INTEGER_PATHS = [
  "spec.replicas",
  "spec.minReadySeconds",
  "spec.revisionHistoryLimit",
  "spec.progressDeadlineSeconds",
  "spec.ordinals.start",
  "spec.updateStrategy.rollingUpdate.partition",
  "spec.template.spec.terminationGracePeriodSeconds",
];
const STRING_PATHS = [
  "spec.serviceName",
  "spec.podManagementPolicy",
  "spec.updateStrategy.type",
  "spec.template.spec.containers[0].image",
  "spec.template.spec.containers[0].name",
  "spec.template.spec.restartPolicy",
];
const BOOLEAN_PATHS = ["spec.paused", "spec.autoRollback"];
const OBJECT_PATHS = ["spec.selector", "spec.template", "spec.template.spec", "spec.ordinals"];
const ARRAY_PATHS = ["spec.template.spec.containers", "spec.volumeClaimTemplates"];

const notInteger: Json[] = ["3", true, [1], { n: 1 }, 1.5, "1e3"];
const notString: Json[] = [7, false, ["a"], { s: "a" }, 0.1];
const notBoolean: Json[] = ["true", 1, [], {}, "yes"];
const notObject: Json[] = ["x", 5, true, ["a"]];
const notArray: Json[] = ["x", 5, { name: "app" }, true];

const wrongType: fc.Arbitrary<Mutation> = fc.oneof(
  ...(
    [
      [INTEGER_PATHS, notInteger],
      [STRING_PATHS, notString],
      [BOOLEAN_PATHS, notBoolean],
      [OBJECT_PATHS, notObject],
      [ARRAY_PATHS, notArray],
    ] as const
  ).map(([paths, values]) =>
    fc.record({ path: fc.constantFrom(...paths), value: fc.constantFrom(...values) }).map(
      ({ path, value }): Mutation => ({
        category: "wrong-type",
        fields: [path],
        apply: (m) => setPath(m, path, value),
      }),
    ),
  ),
);

/** Numbers outside what the schema allows, at the edges of int32, int64 and float64. */
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, -2147483648, 2147483648, 4294967296, 2 ** 53, -(2 ** 53), 1e308, -1e308, 0.5, 1e-300),
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.double({ min: 2 ** 31, max: 1e300, noNaN: true, noDefaultInfinity: true }),
);
const outOfRange: fc.Arbitrary<Mutation> = fc
  .record({
    path: fc.constantFrom(
      "spec.replicas",
      "spec.minReadySeconds",
      "spec.revisionHistoryLimit",
      "spec.progressDeadlineSeconds",
      "spec.ordinals.start",
      "spec.updateStrategy.rollingUpdate.partition",
      "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ),
    value: hostileNumber,
  })
  .map(({ path, value }) => ({
    category: "out-of-range" as const,
    fields: [path],
    apply: (m: Manifest) => {
      if (path.startsWith("spec.updateStrategy")) setPath(m, "spec.updateStrategy.type", "RollingUpdate");
      setPath(m, path, value);
    },
  }));
const zeroMaxUnavailable: fc.Arbitrary<Mutation> = fc.constantFrom(0, "0%", "-1%", "150", "x%").map((v) => ({
  category: "out-of-range",
  fields: ["spec.updateStrategy.rollingUpdate"],
  apply: (m) =>
    setPath(m, "spec.updateStrategy", { type: "RollingUpdate", rollingUpdate: { maxUnavailable: v } }),
}));

/** Names a PetSet may not have, or that its pods may not have (`dot.ted-0` as a hostname). */
const badName = fc.oneof(
  fc.constantFrom("Upper", "under_score", "-lead", "trail-", "a..b", "dot.ted", "späce", "名前", "a b"),
  fc.integer({ min: 53, max: 300 }).map((n) => "n".repeat(n)),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
);
const invalidName: fc.Arbitrary<Mutation> = badName.map((n) => ({
  category: "invalid-name",
  fields: ["metadata.name", "name", "hostname"],
  apply: (m) => {
    m.metadata.name = n;
  },
}));

const badLabelValue = fc.oneof(
  fc.constantFrom("-bad", "bad-", "sp ace", "ünï", "a/b", "x".repeat(64)),
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 12 })
    .filter((s) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s)),
);
const badLabelKey = fc.constantFrom("-k", "a/b/c", "UPPER.example.com/", `${"k".repeat(64)}`, "ключ", "");
const invalidLabel: fc.Arbitrary<Mutation> = fc.oneof(
  badLabelValue.map((v) => ({
    category: "invalid-label" as const,
    fields: ["metadata.labels"],
    apply: (m: Manifest) => {
      m.metadata.labels = { app: v };
    },
  })),
  badLabelKey.map((k) => ({
    category: "invalid-label" as const,
    fields: ["metadata.labels"],
    apply: (m: Manifest) => {
      m.metadata.labels = { [k]: "v" };
    },
  })),
  // Selector and template agree, so the CRD accepts it; the pods cannot carry the label.
  badLabelValue.map((v) => ({
    category: "invalid-label" as const,
    fields: ["labels"],
    apply: (m: Manifest) => {
      setPath(m, "spec.selector.matchLabels", { app: v });
      setPath(m, "spec.template.metadata.labels", { app: v });
    },
  })),
);

const duplicateContainer: fc.Arbitrary<Mutation> = fc.integer({ min: 2, max: 5 }).map((n) => ({
  category: "duplicate-container",
  fields: ["spec.template.spec.containers"],
  apply: (m) => {
    const c = container(m);
    setPath(
      m,
      "spec.template.spec.containers",
      Array.from({ length: n }, () => ({ ...c })),
    );
  },
}));

/**
 * Near and over the limits: kube's 3 MiB request body, etcd's 1.5 MiB value, the 256 KiB of
 * annotations. Sizes in KiB.
 */
const sizeLimit: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom(200, 255, 257, 300).map((kib) => ({
    category: "size-limit" as const,
    fields: ["metadata.annotations"],
    apply: (m: Manifest) => {
      m.metadata.annotations = { "example.com/blob": "a".repeat(kib * 1024) };
    },
  })),
  fc.constantFrom(900, 1400, 1600, 3200).map((kib) => ({
    category: "size-limit" as const,
    fields: ["spec.template", "request", "entity", "too large"],
    apply: (m: Manifest) => {
      container(m).env = Array.from({ length: kib }, (_, i) => ({ name: `V${i}`, value: "v".repeat(1000) }));
    },
  })),
);

function nest(depth: number): Json {
  let v: Json = "leaf";
  for (let i = 0; i < depth; i++) v = { n: v };
  return v;
}
const deepNesting: fc.Arbitrary<Mutation> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 2, max: 60 }), fc.constantFrom(300, 1000)),
    where: fc.constantFrom("spec", "spec.template.spec", "spec.template.spec.containers[0]", "metadata"),
  })
  .map(({ depth, where }) => ({
    category: "deep-nesting" as const,
    fields: [`${where}.deep`, "deep"],
    apply: (m: Manifest) => setPath(m, `${where}.deep`, nest(depth)),
  }));

const unicodeText = fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 });
const unicode: fc.Arbitrary<Mutation> = fc.oneof(
  // Valid: unicode is allowed in annotation values and the image string.
  unicodeText.map((s) => ({
    category: "unicode" as const,
    fields: [],
    apply: (m: Manifest) => {
      m.metadata.annotations = { "example.com/note": s };
    },
  })),
  unicodeText.map((s) => ({
    category: "unicode" as const,
    fields: ["name"],
    apply: (m: Manifest) => {
      container(m).name = s;
    },
  })),
  fc.constantFrom("ÄPFEL", "ключ", "x\u200by", "e\u0301").map((s) => ({
    category: "unicode" as const,
    fields: ["env", "name"],
    apply: (m: Manifest) => {
      container(m).env = [{ name: s, value: "v" }];
    },
  })),
);

const selectorMismatch: fc.Arbitrary<Mutation> = fc
  .constantFrom(
    { selector: { matchLabels: { app: "other" } } },
    { selector: {} },
    { selector: { matchLabels: {} } },
    { selector: { matchExpressions: [{ key: "app", operator: "In", values: ["nope"] }] } },
    { selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] } },
    { selector: { matchExpressions: [{ key: "tier", operator: "Exists" }] } },
    { selector: { matchExpressions: [{ key: "app", operator: "Bogus", values: ["x"] }] } },
    { selector: { matchLabels: { app: "x" } }, labels: null },
  )
  .map(({ selector, labels }) => ({
    category: "selector-mismatch",
    fields: ["spec.selector", "spec.template.metadata.labels", "selector"],
    apply: (m) => {
      m.spec.selector = selector;
      if (labels === null) setPath(m, "spec.template.metadata", {});
    },
  }));

function claim(name: Json, storage: Json, accessModes: Json = ["ReadWriteOnce"]): Json {
  return { metadata: { name }, spec: { accessModes, resources: { requests: { storage } } } };
}
const volumeClaimTemplate: fc.Arbitrary<Mutation> = fc
  .constantFrom(
    { vct: [claim("data", "10Gbb")], fields: ["storage"] },
    { vct: [claim("data", "-1Gi")], fields: ["storage"] },
    { vct: [claim("data", "1Gi", ["Bogus"])], fields: ["accessModes"] },
    { vct: [claim("data", "1Gi", [])], fields: ["accessModes"] },
    { vct: [claim("Bad_Name", "1Gi")], fields: ["name"] },
    { vct: [claim("data", "1Gi"), claim("data", "2Gi")], fields: ["volumeClaimTemplates", "data"] },
    { vct: [{ spec: { resources: { requests: { storage: "1Gi" } } } }], fields: ["name"] },
    { vct: [claim("data", 5)], fields: ["storage"] },
  )
  .map(({ vct, fields }) => ({
    category: "volume-claim-template",
    fields: ["spec.volumeClaimTemplates", ...fields],
    apply: (m) => {
      m.spec.volumeClaimTemplates = vct;
    },
  }));

const unknownField: fc.Arbitrary<Mutation> = fc
  .record({
    where: fc.constantFrom(
      "",
      "metadata",
      "spec",
      "spec.template.spec",
      "spec.template.spec.containers[0]",
      "spec.selector",
    ),
    key: fc.constantFrom("bogus", "Replicas", "replica", "spec", "x-extra", "ünknown"),
  })
  .map(({ where, key }) => {
    const path = where === "" ? key : `${where}.${key}`;
    return {
      category: "unknown-field" as const,
      fields: [path.replace(/\[\d+\]/g, "[0]"), key],
      apply: (m: Manifest) => setPath(m, path, "x"),
    };
  });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: wrongType, weight: 3 },
  { arbitrary: fc.oneof(outOfRange, zeroMaxUnavailable), weight: 3 },
  { arbitrary: invalidName, weight: 2 },
  { arbitrary: invalidLabel, weight: 2 },
  { arbitrary: duplicateContainer, weight: 1 },
  { arbitrary: sizeLimit, weight: 1 },
  { arbitrary: deepNesting, weight: 1 },
  { arbitrary: unicode, weight: 2 },
  { arbitrary: selectorMismatch, weight: 2 },
  { arbitrary: volumeClaimTemplate, weight: 2 },
  { arbitrary: unknownField, weight: 2 },
);

/** `count` hostile cases from `seed`, named `<prefix>-<n>` (unless the case breaks the name). */
export function hostileCases(seed: number, count: number, prefix = "fz"): HostileCase[] {
  const muts = fc.sample(mutation, { seed, numRuns: count });
  return muts.map((mut, i) => {
    const name = `${prefix}-${i}`;
    const manifest = baseManifest(name);
    mut.apply(manifest);
    return { id: `case-${String(i).padStart(5, "0")}`, category: mut.category, fields: mut.fields, manifest };
  });
}
