/**
 * Decodes kube's protobuf encoding (`application/vnd.kubernetes.protobuf`) into the JSON
 * object the API would have received as JSON: the `k8s\0` envelope (runtime.Unknown with
 * apiVersion/kind), then the typed message by generated descriptors, with Go's JSON rules
 * (inline embedding, omitempty, pointers) and kube's well-known wrappers.
 */
import { badRequest, unsupportedMediaType } from "../errors.js";
import { loadDescriptors as load, META, SPECIAL_TYPES as SPECIAL } from "./descriptors.js";
import { readFields, readPackedVarints, toSigned, type WireField } from "./wire.js";

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const text = new TextDecoder("utf-8", { fatal: false });

/** The JSON object carried by a protobuf request body. */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b))
    throw badRequest("protobuf body is missing the k8s envelope");
  let apiVersion = "";
  let kind = "";
  let raw: Uint8Array | undefined;
  for (const f of readFields(body.subarray(4))) {
    if (f.n === 1 && f.wire === 2) {
      for (const t of readFields(f.value as Uint8Array)) {
        if (t.n === 1) apiVersion = text.decode(t.value as Uint8Array);
        if (t.n === 2) kind = text.decode(t.value as Uint8Array);
      }
    } else if (f.n === 2 && f.wire === 2) raw = f.value as Uint8Array;
  }
  const d = load();
  const root = d.roots[`${apiVersion}/${kind}`];
  if (!root)
    throw unsupportedMediaType(`${PROTOBUF_CONTENT_TYPE} (${apiVersion}, Kind=${kind})`, [
      "application/json",
      "application/yaml",
    ]);
  const obj = decodeMessage(root, raw ?? new Uint8Array());
  return { apiVersion, kind, ...obj };
}

function decodeMessage(name: string, buf: Uint8Array): Record<string, unknown> {
  const desc = load().messages[name];
  if (!desc) throw badRequest(`protobuf: no descriptor for ${name}`);
  const out: Record<string, unknown> = {};
  const fields = readFields(buf);
  for (const f of Object.values(desc)) {
    const hits = fields.filter((w) => w.n === f.n);
    if (hits.length === 0) continue;
    if (f.map) {
      const m: Record<string, unknown> = {};
      for (const h of hits) {
        let k = "";
        let v: unknown = f.map[1] === "string" ? "" : undefined;
        for (const e of readFields(h.value as Uint8Array)) {
          if (e.n === 1) k = text.decode(e.value as Uint8Array);
          if (e.n === 2) v = scalarOrMessage(f.map[1], e);
        }
        m[k] = v ?? (f.map[1] === "bytes" ? "" : {});
      }
      if (Object.keys(m).length) out[f.json] = m;
      continue;
    }
    if (f.repeated) {
      const values: unknown[] = [];
      for (const h of hits) {
        if (h.wire === 2 && isVarintType(f.type))
          values.push(...readPackedVarints(h.value as Uint8Array).map((v) => varintValue(f.type, v)));
        else values.push(scalarOrMessage(f.type, h));
      }
      if (values.length) out[f.json] = values;
      continue;
    }
    const value = scalarOrMessage(f.type, hits[hits.length - 1]!);
    if (f.inline && value && typeof value === "object") {
      Object.assign(out, value);
      continue;
    }
    if (value === undefined) continue;
    if (!f.pointer && f.omitEmpty && isZero(value, f.type)) continue;
    out[f.json] = value;
  }
  return out;
}

function isVarintType(t: string): boolean {
  return t === "int32" || t === "int64" || t === "uint32" || t === "uint64" || t === "bool";
}

function varintValue(t: string, v: bigint): unknown {
  if (t === "bool") return v !== 0n;
  if (t === "int32") return Number(BigInt.asIntN(32, v));
  if (t === "int64") return toSigned(v);
  return Number(v);
}

function isZero(v: unknown, t: string): boolean {
  if (t.includes(".")) return false; // structs are never omitted by Go's encoding/json
  return v === "" || v === 0 || v === false;
}

function scalarOrMessage(type: string, w: WireField): unknown {
  if (isVarintType(type)) return varintValue(type, w.value as bigint);
  const bytes = w.value as Uint8Array;
  switch (type) {
    case "string":
      return text.decode(bytes);
    case "bytes":
      return Buffer.from(bytes).toString("base64");
    case "double":
      return Buffer.from(bytes).readDoubleLE(0);
    case "float":
      return Buffer.from(bytes).readFloatLE(0);
  }
  return SPECIAL.has(type) ? special(type, bytes) : decodeMessage(type, bytes);
}

/** kube's wrappers that have their own JSON form (undefined = zero value, omitted). */
function special(type: string, bytes: Uint8Array): unknown {
  const f = readFields(bytes);
  const num = (n: number) => {
    const hit = f.find((x) => x.n === n);
    return hit ? toSigned(hit.value as bigint) : 0;
  };
  const str = (n: number) => {
    const hit = f.find((x) => x.n === n);
    return hit ? text.decode(hit.value as Uint8Array) : "";
  };
  switch (type) {
    case `${META}Time`: {
      const s = num(1);
      return s === 0 && num(2) === 0 ? undefined : `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;
    }
    case `${META}MicroTime`: {
      const s = num(1);
      if (s === 0 && num(2) === 0) return undefined;
      const micros = String(Math.floor(num(2) / 1000)).padStart(6, "0");
      return `${new Date(s * 1000).toISOString().slice(0, 19)}.${micros}Z`;
    }
    case `${META}Duration`:
      return `${num(1) / 1e9}s`;
    case `${META}FieldsV1`:
    case "k8s.io.apimachinery.pkg.runtime.RawExtension": {
      const raw = str(1);
      try {
        return raw ? JSON.parse(raw) : undefined;
      } catch {
        return undefined;
      }
    }
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
      return num(1) === 1 ? str(3) : num(2);
    case "k8s.io.apimachinery.pkg.api.resource.Quantity":
      return str(1);
  }
  return undefined;
}
