/**
 * The CEL environment of CRD validation rules: the standard library, the strings extension
 * and the Kubernetes list and regex libraries (k8s.io/apiserver/pkg/cel/library), plus the
 * optional-value methods `optionalOldSelf` rules use on `oldSelf`.
 *
 * @bufbuild/cel has no optional type, so an optional is a map with a private marker key; only
 * `oldSelf` of an optionalOldSelf rule is ever one.
 */
import {
  type CelEnv,
  type CelList,
  type CelMap,
  CelScalar,
  type CelValue,
  celEnv,
  celError,
  celMap,
  celMethod,
  isCelList,
  isCelMap,
  listType,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

const OPTIONAL_MARK = "\u0000optional";
const OPTIONAL_VALUE = "\u0000value";

export function optionalOf(v: CelValue | undefined): CelMap {
  const m = new Map<string, CelValue>([[OPTIONAL_MARK, v !== undefined]]);
  if (v !== undefined) m.set(OPTIONAL_VALUE, v);
  return celMap(m);
}

function asOptional(v: CelValue): CelMap | undefined {
  return isCelMap(v) && v.has(OPTIONAL_MARK) ? v : undefined;
}

type Comparable = bigint | number | string | boolean;

function comparable(v: CelValue): v is Comparable {
  return typeof v === "bigint" || typeof v === "number" || typeof v === "string" || typeof v === "boolean";
}

function compare(a: CelValue, b: CelValue): number {
  if (!comparable(a) || !comparable(b) || typeof a !== typeof b) throw celError("no such overload");
  return a < b ? -1 : a > b ? 1 : 0;
}

function items(list: CelList): CelValue[] {
  return [...list];
}

function extreme(list: CelList, sign: 1 | -1): CelValue {
  const xs = items(list);
  if (xs.length === 0) throw celError("min called on empty list");
  let best = xs[0] as CelValue;
  for (const x of xs.slice(1)) if (compare(x, best) * sign > 0) best = x;
  return best;
}

function equalValues(a: CelValue, b: CelValue): boolean {
  if (comparable(a) && comparable(b)) return a === b;
  if (isCelList(a) && isCelList(b)) {
    const xs = items(a);
    const ys = items(b);
    return xs.length === ys.length && xs.every((x, i) => equalValues(x, ys[i] as CelValue));
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, x] of a) {
      const y = b.get(k);
      if (y === undefined || !equalValues(x, y)) return false;
    }
    return true;
  }
  return a === b;
}

const DYN_LIST = listType(CelScalar.DYN);
const { DYN, BOOL, INT, STRING } = CelScalar;

const kubernetesFuncs = [
  celMethod("isSorted", DYN_LIST, [], BOOL, function () {
    const xs = items(this);
    for (let i = 1; i < xs.length; i++)
      if (compare(xs[i - 1] as CelValue, xs[i] as CelValue) > 0) return false;
    return true;
  }),
  celMethod("sum", DYN_LIST, [], DYN, function () {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    if (xs.every((x) => typeof x === "bigint")) return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    return xs.reduce<number>((a, b) => a + Number(b), 0);
  }),
  celMethod("min", DYN_LIST, [], DYN, function () {
    return extreme(this, -1);
  }),
  celMethod("max", DYN_LIST, [], DYN, function () {
    return extreme(this, 1);
  }),
  celMethod("indexOf", DYN_LIST, [DYN], INT, function (x) {
    return BigInt(items(this).findIndex((y) => equalValues(x, y)));
  }),
  celMethod("lastIndexOf", DYN_LIST, [DYN], INT, function (x) {
    return BigInt(items(this).findLastIndex((y) => equalValues(x, y)));
  }),
  celMethod("find", STRING, [STRING], STRING, function (re) {
    return new RegExp(re, "u").exec(this)?.[0] ?? "";
  }),
  celMethod("findAll", STRING, [STRING], listType(STRING), function (re) {
    return [...this.matchAll(new RegExp(re, "gu"))].map((m) => m[0]);
  }),
  celMethod("findAll", STRING, [STRING, INT], listType(STRING), function (re, n) {
    const all = [...this.matchAll(new RegExp(re, "gu"))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  }),
  celMethod("hasValue", DYN, [], BOOL, function () {
    const o = asOptional(this);
    if (!o) throw celError("no such overload");
    return o.get(OPTIONAL_MARK) === true;
  }),
  celMethod("value", DYN, [], DYN, function () {
    const o = asOptional(this);
    if (!o) throw celError("no such overload");
    const v = o.get(OPTIONAL_VALUE);
    if (v === undefined) throw celError("optional.none() dereference");
    return v;
  }),
  celMethod("orValue", DYN, [DYN], DYN, function (d) {
    const o = asOptional(this);
    if (!o) throw celError("no such overload");
    return o.get(OPTIONAL_VALUE) ?? d;
  }),
];

let shared: CelEnv | undefined;

/** The environment (immutable, so one instance serves every rule). */
export function validationEnv(): CelEnv {
  shared ??= celEnv({ funcs: [...strings, ...kubernetesFuncs] });
  return shared;
}
