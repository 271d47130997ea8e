/**
 * Makes the responses of two API servers comparable. Run over all responses of one scenario
 * on one server at once, so that placeholders keep the relations between values:
 * - uids become `<uid:NAME>` (the name of the object that has it), so an ownerReference
 *   still visibly points at its owner;
 * - object resourceVersions become `<rv#k>`, k the rank among the scenario's object
 *   resourceVersions: equal stays equal, older stays smaller. List and bookmark
 *   resourceVersions become `<rv:list>`: on a shared real cluster they count writes of
 *   others too;
 * - names made from `generateName` become `PREFIX<gen#k>`, timestamps `<time>`, continue
 *   tokens `<continue>`, Table `Age` cells `<age>`;
 * - managedFields entries are put in kube's order without the time (byManagedFieldsKey).
 */
import type { Json, JsonObject, StepResponse } from "./types.js";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MESSAGE_RULES: [RegExp, string][] = [
  // kube-apiserver's 410 names the oldest resourceVersion it still has.
  [/too old resource version: (\d+) \((\d+)\)/g, "too old resource version: $1 (<oldest>)"],
  [/the ResourceVersion in record \((\d+)\)/g, "the ResourceVersion in record (<rv>)"],
];

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function walk(v: Json, visit: (o: JsonObject) => void): void {
  if (Array.isArray(v)) for (const x of v) walk(x, visit);
  else if (isObject(v)) {
    visit(v);
    for (const x of Object.values(v)) walk(x, visit);
  }
}

function isObjectMeta(m: JsonObject): boolean {
  return typeof m.name === "string" || typeof m.uid === "string" || typeof m.generateName === "string";
}

function compareRv(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Maps {
  uids: Map<string, string>;
  rvs: Map<string, string>;
  generated: Map<string, string>;
}

function collect(bodies: Json[]): Maps {
  const uids = new Map<string, string>();
  const labels = new Set<string>();
  const generated = new Map<string, string>();
  const rvs = new Set<string>();
  for (const body of bodies)
    walk(body, (o) => {
      const m = o.metadata;
      if (!isObject(m) || !isObjectMeta(m)) return;
      const name = typeof m.name === "string" ? m.name : "";
      const gen = m.generateName;
      if (typeof gen === "string" && name.startsWith(gen) && name !== gen && !generated.has(name))
        generated.set(name, `${gen}<gen#${generated.size + 1}>`);
      if (typeof m.uid === "string" && !uids.has(m.uid)) {
        let label = `<uid:${generated.get(name) ?? name}>`;
        for (let i = 2; labels.has(label); i++) label = `<uid:${name}#${i}>`;
        labels.add(label);
        uids.set(m.uid, label);
      }
      if (typeof m.resourceVersion === "string" && m.resourceVersion !== "") rvs.add(m.resourceVersion);
    });
  const ranked = [...rvs].sort(compareRv);
  return { uids, generated, rvs: new Map(ranked.map((rv, i) => [rv, `<rv#${i + 1}>`])) };
}

function normalizeString(s: string, maps: Maps): string {
  if (TIME.test(s)) return "<time>";
  let out = s.replace(UUID, (u) => maps.uids.get(u) ?? "<uid:?>");
  for (const [name, label] of maps.generated) if (out.includes(name)) out = out.split(name).join(label);
  for (const [re, to] of MESSAGE_RULES) out = out.replace(re, to);
  return out;
}

function normalizeValue(v: Json, maps: Maps, key: string, parent: JsonObject | undefined): Json {
  if (typeof v === "string") {
    if (key === "resourceVersion" && v !== "")
      return parent && isObjectMeta(parent) ? (maps.rvs.get(v) ?? "<rv:other>") : "<rv:list>";
    if (key === "continue" && v !== "") return "<continue>";
    return normalizeString(v, maps);
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => normalizeValue(x, maps, "", undefined));
    return key === "managedFields" ? items.sort(byManagedFieldsKey) : items;
  }
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  // managedFields name list items by key, e.g. `k:{"uid":"..."}` for ownerReferences.
  for (const [k, x] of Object.entries(v)) out[normalizeString(k, maps)] = normalizeValue(x, maps, k, v);
  if (out.kind === "Table") normalizeTableAges(out);
  return out;
}

/**
 * kube-apiserver orders managedFields by operation, then the time in whole seconds, then
 * manager, apiVersion and subresource. Times are `<time>` here, and whether two writes fall in
 * the same second is luck: compare the entries in kube's order without the time.
 */
function byManagedFieldsKey(a: Json, b: Json): number {
  const key = (e: Json) =>
    isObject(e)
      ? [e.operation, e.manager, e.apiVersion, e.subresource ?? ""].map((x) => String(x ?? "")).join("\u0000")
      : "";
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function normalizeTableAges(table: JsonObject): void {
  const columns = Array.isArray(table.columnDefinitions) ? table.columnDefinitions : [];
  const ages = columns.flatMap((c, i) => (isObject(c) && c.name === "Age" ? [i] : []));
  if (!Array.isArray(table.rows)) return;
  for (const row of table.rows) {
    if (!isObject(row) || !Array.isArray(row.cells)) continue;
    for (const i of ages) if (i < row.cells.length) row.cells[i] = "<age>";
  }
}

/** Normalizes all responses of one scenario on one server (see the module comment). */
export function normalizeResponses(responses: StepResponse[]): StepResponse[] {
  const maps = collect(responses.map((r) => r.body));
  return responses.map((r) => ({ ...r, body: normalizeValue(r.body, maps, "", undefined) }));
}
