/**
 * Sets of field paths and their managedFields (`fieldsV1`) encoding, plus the set of
 * fields an object value sets (structured-merge-diff's ToFieldSet rules: scalars, atomic
 * lists/maps, list items and map entries are members; struct fields only when empty).
 */
import type { TypeNode } from "../registry/type-node.js";
import { isPlainObject, type JsonObject } from "../types.js";
import { elementKey, type FieldPath, listItemElement, parseElementKey, pathId } from "./field-path.js";

export class FieldSet {
  private readonly paths = new Map<string, FieldPath>();

  static of(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(p: FieldPath): void {
    if (p.length > 0) this.paths.set(pathId(p), p);
  }
  has(p: FieldPath): boolean {
    return this.paths.has(pathId(p));
  }
  get size(): number {
    return this.paths.size;
  }
  empty(): boolean {
    return this.paths.size === 0;
  }
  values(): FieldPath[] {
    return [...this.paths.values()];
  }
  union(o: FieldSet): FieldSet {
    return FieldSet.of([...this.values(), ...o.values()]);
  }
  difference(o: FieldSet): FieldSet {
    return FieldSet.of(this.values().filter((p) => !o.has(p)));
  }
  intersection(o: FieldSet): FieldSet {
    return FieldSet.of(this.values().filter((p) => o.has(p)));
  }
  /** Keeps only paths `keep` accepts. */
  filter(keep: (p: FieldPath) => boolean): FieldSet {
    return FieldSet.of(this.values().filter(keep));
  }
  /** True when some member starts with `prefix` (strictly longer). */
  hasDescendantOf(prefix: FieldPath): boolean {
    const id = pathId(prefix);
    for (const k of this.paths.keys()) if (k.length > id.length && k.startsWith(`${id}\u0000`)) return true;
    return false;
  }

  toFieldsV1(): JsonObject {
    const root: JsonObject = {};
    const sorted = this.values().sort((a, b) => a.length - b.length);
    for (const p of sorted) {
      let node = root;
      for (let i = 0; i < p.length; i++) {
        const key = elementKey(p[i]!);
        let child = node[key] as JsonObject | undefined;
        if (!child) {
          child = {};
          node[key] = child;
        }
        if (i === p.length - 1) {
          if (Object.keys(child).length > 0) child["."] = {};
        } else if (Object.keys(child).length === 0 && this.has(p.slice(0, i + 1))) {
          child["."] = {};
        }
        node = child;
      }
    }
    return root;
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    const walk = (node: unknown, prefix: FieldPath): void => {
      if (!isPlainObject(node)) return;
      const keys = Object.keys(node);
      if (keys.length === 0) {
        s.insert(prefix);
        return;
      }
      for (const k of keys) {
        if (k === ".") {
          s.insert(prefix);
          continue;
        }
        const pe = parseElementKey(k);
        if (pe) walk(node[k], [...prefix, pe]);
      }
    };
    walk(v, []);
    return s;
  }
}

/** The fields `value` sets, typed by `type` (undefined = schemaless: lists atomic). */
export function fieldSetOf(value: unknown, type: TypeNode | undefined): FieldSet {
  const set = new FieldSet();
  walkSet(value, type, [], set);
  return set;
}

function walkSet(value: unknown, type: TypeNode | undefined, path: FieldPath, set: FieldSet): void {
  if (Array.isArray(value)) {
    const lt = type?.listType() ?? "atomic";
    if (lt === "atomic") {
      set.insert(path);
      return;
    }
    const itemType = type?.items();
    value.forEach((item, i) => {
      const p = [...path, listItemElement(type, item, i)];
      set.insert(p);
      walkSet(item, itemType, p, set);
    });
    return;
  }
  if (isPlainObject(value)) {
    if (type?.atomicMap()) {
      set.insert(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const p = [...path, { f: k }];
      const child = type?.field(k);
      walkSet(v, child, p, set);
      const emptyMap = v === null || (isPlainObject(v) && Object.keys(v).length === 0);
      if (emptyMap || !type?.hasField(k)) set.insert(p);
    }
    return;
  }
  set.insert(path);
}
