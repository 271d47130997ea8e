import { Annotations } from "../api/index.js";
import { canonicalJson, isJsonObject, type Json, type JsonObject } from "./canonical-json.js";
import { canonicalContent, type VersionContent } from "./content.js";

/**
 * Readable items describing what changed between two contents, in a fixed order:
 * containers, init containers, volumes, other pod fields, template labels, annotations,
 * other template metadata, volumeClaimTemplates. E.g.
 * `image app: nginx:1.26 -> nginx:1.27`, `env app: +FOO, -BAR, ~BAZ`.
 *
 * What changed is decided on the canonical forms (so `cpu: 1` -> `cpu: "1"` is no change);
 * values are shown as the user wrote them.
 */
export function summarizeChange(from: VersionContent, to: VersionContent): string[] {
  const [before, after] = [canonicalContent(from), canonicalContent(to)];
  const [templateA, templateB] = [field(before, "template"), field(after, "template")];
  const [specA, specB] = [field(templateA, "spec"), field(templateB, "spec")];
  const [metaA, metaB] = [field(templateA, "metadata"), field(templateB, "metadata")];
  return [
    ...containerListChanges("containers", (name) => name, specA, specB, from, to),
    ...containerListChanges("initContainers", (name) => `${name} (init)`, specA, specB, from, to),
    ...namedListChange("volumes", list(specA.volumes), list(specB.volumes), nameField),
    ...changedKeys("pod", specA, specB, ["containers", "initContainers", "volumes"]),
    ...mapChange("labels", field(metaA, "labels"), field(metaB, "labels")),
    ...annotationChanges(field(metaA, "annotations"), field(metaB, "annotations")),
    ...changedKeys("template metadata", metaA, metaB, ["labels", "annotations"]),
    ...namedListChange(
      "volumeClaimTemplates",
      list(before.volumeClaimTemplates),
      list(after.volumeClaimTemplates),
      (claim) => nameField(field(claim, "metadata")),
    ),
  ];
}

const CONTAINER_FIELDS_SHOWN = new Set(["name", "image", "env", "envFrom", "resources", "command", "args"]);

function containerListChanges(
  key: "containers" | "initContainers",
  label: (name: string) => string,
  specA: JsonObject,
  specB: JsonObject,
  from: VersionContent,
  to: VersionContent,
): string[] {
  const [a, b] = [byName(list(specA[key]), nameField), byName(list(specB[key]), nameField)];
  const [rawA, rawB] = [rawContainers(from, key), rawContainers(to, key)];
  const items = namedListChange(key, list(specA[key]), list(specB[key]), nameField, false);
  for (const [name, after] of b) {
    const before = a.get(name);
    if (before !== undefined)
      items.push(...containerChanges(label(name), before, after, rawA.get(name), rawB.get(name)));
  }
  return items;
}

function containerChanges(
  label: string,
  a: JsonObject,
  b: JsonObject,
  rawA: Record<string, unknown> | undefined,
  rawB: Record<string, unknown> | undefined,
): string[] {
  const items: string[] = [];
  if (!same(a.image, b.image)) items.push(`image ${label}: ${show(rawA?.image)} -> ${show(rawB?.image)}`);
  const env = namedItems(list(a.env), list(b.env), nameField);
  if (env.length > 0) items.push(`env ${label}: ${env.join(", ")}`);
  // Same variables in another order: still a change, since order decides `$(VAR)` expansion.
  else if (!same(a.env, b.env)) items.push(`env ${label}: reordered`);
  if (!same(a.envFrom, b.envFrom)) items.push(`envFrom ${label}`);
  const resources = resourceChanges(field(a, "resources"), field(b, "resources"), rawA, rawB);
  if (resources.length > 0) items.push(`resources ${label}: ${resources.join(", ")}`);
  for (const key of ["command", "args"] as const) {
    if (!same(a[key], b[key])) items.push(`${key} ${label}: ${words(rawA?.[key])} -> ${words(rawB?.[key])}`);
  }
  const others = changedFieldNames(a, b, CONTAINER_FIELDS_SHOWN);
  if (others.length > 0) items.push(`container ${label}: ${others.join(", ")}`);
  return items;
}

function resourceChanges(
  a: JsonObject,
  b: JsonObject,
  rawA: Record<string, unknown> | undefined,
  rawB: Record<string, unknown> | undefined,
): string[] {
  const items: string[] = [];
  for (const kind of ["requests", "limits"] as const) {
    const [amountsA, amountsB] = [field(a, kind), field(b, kind)];
    for (const resource of union(Object.keys(amountsA), Object.keys(amountsB)).sort()) {
      if (same(amountsA[resource], amountsB[resource])) continue;
      const shown = (raw: Record<string, unknown> | undefined) =>
        show(rawRecord(rawRecord(raw?.resources)?.[kind])?.[resource]);
      items.push(`${kind}.${resource} ${shown(rawA)} -> ${shown(rawB)}`);
    }
  }
  items.push(...changedFieldNames(a, b, new Set(["requests", "limits"])));
  return items;
}

function annotationChanges(a: JsonObject, b: JsonObject): string[] {
  const restart = Annotations.restartedAt;
  const items = mapChange("annotations", without(a, restart), without(b, restart));
  if (b[restart] !== undefined && !same(a[restart], b[restart])) items.push("restart requested");
  return items;
}

/** `label: +added, -removed, ~changed` for lists keyed by name; `label: reordered` when only order changed. */
function namedListChange(
  label: string,
  a: Json[],
  b: Json[],
  nameOf: (item: JsonObject) => string | undefined,
  includeChanged = true,
): string[] {
  const items = namedItems(a, b, nameOf, includeChanged);
  if (items.length > 0) return [`${label}: ${items.join(", ")}`];
  const [namesA, namesB] = [a, b].map((xs) =>
    xs.map((x) => (isJsonObject(x) ? nameOf(x) : undefined)).join("\n"),
  );
  return namesA !== namesB ? [`${label}: reordered`] : [];
}

function namedItems(
  a: Json[],
  b: Json[],
  nameOf: (item: JsonObject) => string | undefined,
  includeChanged = true,
): string[] {
  const [before, after] = [byName(a, nameOf), byName(b, nameOf)];
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed = includeChanged
    ? [...after.keys()].filter((name) => before.has(name) && !same(before.get(name), after.get(name)))
    : [];
  return [...added.map((n) => `+${n}`), ...removed.map((n) => `-${n}`), ...changed.map((n) => `~${n}`)];
}

function mapChange(label: string, a: JsonObject, b: JsonObject): string[] {
  const keys = union(Object.keys(a), Object.keys(b));
  const added = keys.filter((k) => a[k] === undefined && b[k] !== undefined);
  const removed = keys.filter((k) => a[k] !== undefined && b[k] === undefined);
  const changed = keys.filter((k) => a[k] !== undefined && b[k] !== undefined && !same(a[k], b[k]));
  const items = [
    ...added.map((k) => `+${k}`),
    ...removed.map((k) => `-${k}`),
    ...changed.map((k) => `~${k}`),
  ];
  return items.length > 0 ? [`${label}: ${items.join(", ")}`] : [];
}

function changedKeys(
  label: string,
  a: JsonObject,
  b: JsonObject,
  shownElsewhere: readonly string[],
): string[] {
  const keys = changedFieldNames(a, b, new Set(shownElsewhere));
  return keys.length > 0 ? [`${label}: ${keys.join(", ")}`] : [];
}

function changedFieldNames(a: JsonObject, b: JsonObject, skip: ReadonlySet<string>): string[] {
  return union(Object.keys(a), Object.keys(b))
    .filter((key) => !skip.has(key) && !same(a[key], b[key]))
    .sort();
}

function rawContainers(content: VersionContent, key: "containers" | "initContainers") {
  const map = new Map<string, Record<string, unknown>>();
  for (const container of content.template.spec[key] ?? []) map.set(container.name, container);
  return map;
}

function byName(items: Json[], nameOf: (item: JsonObject) => string | undefined): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const item of items) {
    const name = isJsonObject(item) ? nameOf(item) : undefined;
    if (isJsonObject(item) && name !== undefined) map.set(name, item);
  }
  return map;
}

function nameField(item: JsonObject): string | undefined {
  return typeof item.name === "string" ? item.name : undefined;
}

function field(object: JsonObject, key: string): JsonObject {
  const value = object[key];
  return isJsonObject(value) ? value : {};
}

function list(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

function rawRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

function without(object: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = object;
  return rest;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

function show(value: unknown): string {
  if (value === undefined || value === null) return "none";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function words(value: unknown): string {
  return Array.isArray(value) ? value.map(show).join(" ") : show(value);
}
