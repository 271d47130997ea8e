/**
 * Turns a Kubernetes built-in type from the official OpenAPI v3 document into a structural
 * schema that a CRD can embed (`kubectl explain` then shows the real field docs, and the API
 * server rejects a malformed template with a field path). The conversion follows what
 * kube-apiserver accepts in a CRD:
 * - `$ref` / `allOf: [{$ref}]` are inlined (CRD schemas cannot reference);
 * - IntOrString and Quantity become `x-kubernetes-int-or-string` (Quantity also gets the
 *   quantity pattern, as controller-gen emits it); Time becomes a date-time string;
 * - nested ObjectMeta is reduced to the fields a template may carry (labels, annotations,
 *   name, namespace, generateName, finalizers): kube prunes unknown metadata anyway;
 * - `default` is dropped, except a scalar default on a list-map key (kube requires map keys
 *   to be required or defaulted, e.g. `ports[].protocol: TCP`). Object defaults like `{}` in
 *   the OpenAPI are serialization artefacts of non-pointer Go fields; keeping them would make
 *   the server rewrite templates the user wrote, which versions must store verbatim;
 * - patch-strategy, union and GVK extensions are dropped (not allowed in CRD schemas).
 */
import type { OpenApiDoc } from "../k8s-openapi-source.js";

export type Schema = Record<string, unknown>;

const REF_PREFIX = "#/components/schemas/";
const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
const MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";
const TEMPLATE_META_FIELDS = ["name", "namespace", "generateName", "labels", "annotations", "finalizers"];

const KEPT_KEYS = new Set([
  "type",
  "format",
  "description",
  "properties",
  "items",
  "additionalProperties",
  "required",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function refName(node: Schema): string | undefined {
  if (typeof node.$ref === "string") return node.$ref.slice(REF_PREFIX.length);
  const allOf = node.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0]) && typeof allOf[0].$ref === "string") {
    return allOf[0].$ref.slice(REF_PREFIX.length);
  }
  return undefined;
}

export class StructuralConverter {
  private readonly schemas: Record<string, Record<string, unknown>>;

  constructor(doc: OpenApiDoc) {
    this.schemas = doc.components.schemas;
  }

  /** The structural schema of a named component, e.g. `io.k8s.api.core.v1.PodTemplateSpec`. */
  convertNamed(name: string): Schema {
    return this.convert({ $ref: `${REF_PREFIX}${name}` }, []);
  }

  private lookup(name: string): Schema {
    const s = this.schemas[name];
    if (!s) throw new Error(`OpenAPI component ${name} not found`);
    return s;
  }

  private convert(node: Schema, stack: string[]): Schema {
    const ref = refName(node);
    if (ref) {
      const description = typeof node.description === "string" ? node.description : undefined;
      const inner = this.convertRef(ref, stack);
      return description ? { ...inner, description } : inner;
    }
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (!KEPT_KEYS.has(key)) continue;
      if (key === "properties" && isRecord(value)) {
        const props: Schema = {};
        for (const [p, ps] of Object.entries(value)) {
          if (isRecord(ps)) props[p] = this.convert(ps, stack);
        }
        out.properties = props;
      } else if ((key === "items" || key === "additionalProperties") && isRecord(value)) {
        out[key] = this.convert(value, stack);
      } else {
        out[key] = value;
      }
    }
    this.keepListMapKeyDefaults(node, out);
    return out;
  }

  /** Keeps the scalar default of list-map keys that are not required (see file comment). */
  private keepListMapKeyDefaults(node: Schema, out: Schema): void {
    const keys = node["x-kubernetes-list-map-keys"];
    const items = out.items;
    if (!Array.isArray(keys) || !isRecord(items) || !isRecord(items.properties)) return;
    const itemSource = isRecord(node.items) ? node.items : {};
    const ref = refName(itemSource);
    const sourceProps = ref ? this.lookup(ref).properties : itemSource.properties;
    const required = Array.isArray(items.required) ? items.required : [];
    for (const key of keys) {
      if (typeof key !== "string" || required.includes(key)) continue;
      const src = isRecord(sourceProps) ? sourceProps[key] : undefined;
      const prop = items.properties[key];
      if (isRecord(src) && isRecord(prop) && src.default !== undefined && !isRecord(src.default)) {
        prop.default = src.default;
      }
    }
  }

  private convertRef(name: string, stack: string[]): Schema {
    if (stack.includes(name)) throw new Error(`recursive schema ${[...stack, name].join(" -> ")}`);
    const source = this.lookup(name);
    const description = typeof source.description === "string" ? source.description : undefined;
    const withDescription = (s: Schema): Schema => (description ? { description, ...s } : s);
    switch (name) {
      case INT_OR_STRING:
        return withDescription({
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
        });
      case QUANTITY:
        return withDescription({
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
          pattern: QUANTITY_PATTERN,
        });
      case TIME:
      case MICRO_TIME:
        return withDescription({ type: "string", format: "date-time" });
      case OBJECT_META: {
        const full = this.convert(source, [...stack, name]);
        const props = isRecord(full.properties) ? full.properties : {};
        const kept: Schema = {};
        for (const f of TEMPLATE_META_FIELDS) if (props[f]) kept[f] = props[f];
        return { ...full, properties: kept };
      }
      default:
        return this.convert(source, [...stack, name]);
    }
  }
}
