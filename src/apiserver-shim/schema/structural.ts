/**
 * A compiled view of an apiextensions.k8s.io/v1 JSONSchemaProps tree. Every walk (pruning,
 * defaulting, validation, CEL) goes through these nodes; they are built once per schema object
 * and cached in a WeakMap, so the big PodTemplateSpec schema is parsed once, not per request.
 */
export type JSONSchemaProps = Record<string, unknown>;

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface SchemaNode {
  readonly raw: JSONSchemaProps;
  /** The declared `type` ("" when absent). */
  readonly type: string;
  /** The type list kube-openapi checks: `[type]`, `["integer","string"]` for int-or-string, or []. */
  readonly types: readonly string[];
  readonly nullable: boolean;
  /** Format after dropping the ones kube does not validate (see formats.ts). */
  readonly format: string;
  readonly enum?: readonly unknown[];
  readonly maximum?: number;
  readonly exclusiveMaximum: boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly patternRegExp?: RegExp;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly uniqueItems: boolean;
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly required: readonly string[];
  readonly properties?: ReadonlyMap<string, SchemaNode>;
  /** A schema, `false` (forbidden), `true` (any) or undefined (not set). */
  readonly additionalProperties?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly allOf: readonly SchemaNode[];
  readonly anyOf: readonly SchemaNode[];
  readonly oneOf: readonly SchemaNode[];
  readonly not?: SchemaNode;
  readonly intOrString: boolean;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly listType?: string;
  readonly listMapKeys: readonly string[];
  readonly mapType?: string;
  readonly hasDefault: boolean;
  readonly default?: unknown;
  readonly validations: readonly ValidationRule[];
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const cache = new WeakMap<JSONSchemaProps, SchemaNode>();
const EMPTY: JSONSchemaProps = {};

/** The compiled node of a schema object (cached by identity). */
export function schemaNode(raw: JSONSchemaProps | undefined): SchemaNode {
  const key = raw ?? EMPTY;
  let node = cache.get(key);
  if (!node) {
    node = build(key);
    cache.set(key, node);
  }
  return node;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const nodes = (v: unknown): SchemaNode[] =>
  Array.isArray(v) ? v.filter(isRecord).map((s) => schemaNode(s)) : [];

/** The formats kube-openapi validates in CRDs (apiextensions validation/formats.go), normalized. */
const STRING_FORMATS = new Set([
  "bsonobjectid",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "cidr",
  "mac",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
  "isbn",
  "isbn10",
  "isbn13",
  "creditcard",
  "ssn",
  "hexcolor",
  "rgbcolor",
  "byte",
  "password",
  "date",
  "duration",
  "datetime",
  "quantity",
]);

/** StripUnsupportedFormatsPostProcess: unknown formats are ignored, not rejected. */
function supportedFormat(type: string, format: string): string {
  if (!format) return "";
  switch (type) {
    case "":
    case "string":
      return STRING_FORMATS.has(format.replaceAll("-", "")) ? format : "";
    case "integer":
      return format === "int32" || format === "int64" ? format : "";
    case "number":
      return format === "float" || format === "double" ? format : "";
    default:
      return "";
  }
}

/** Go RE2 patterns to JS: a leading `(?i)`/`(?s)` becomes a flag; unicode mode when it parses. */
export function goPatternToRegExp(pattern: string): RegExp | undefined {
  let source = pattern;
  let flags = "";
  const m = /^\(\?([ims]+)\)/.exec(source);
  if (m?.[1]) {
    flags = [...new Set(m[1])].join("");
    source = source.slice(m[0].length);
  }
  for (const f of [`${flags}u`, flags]) {
    try {
      return new RegExp(source, f);
    } catch {
      // try without unicode mode
    }
  }
  return undefined;
}

function rules(v: unknown): ValidationRule[] {
  if (!Array.isArray(v)) return [];
  const out: ValidationRule[] = [];
  for (const r of v) {
    if (!isRecord(r) || typeof r.rule !== "string") continue;
    const rule: ValidationRule = { rule: r.rule };
    if (typeof r.message === "string") rule.message = r.message;
    if (typeof r.messageExpression === "string") rule.messageExpression = r.messageExpression;
    if (typeof r.reason === "string") rule.reason = r.reason;
    if (typeof r.fieldPath === "string") rule.fieldPath = r.fieldPath;
    if (typeof r.optionalOldSelf === "boolean") rule.optionalOldSelf = r.optionalOldSelf;
    out.push(rule);
  }
  return out;
}

function build(raw: JSONSchemaProps): SchemaNode {
  const type = str(raw.type) ?? "";
  const intOrString = raw["x-kubernetes-int-or-string"] === true;
  const pattern = str(raw.pattern);
  let properties: Map<string, SchemaNode> | undefined;
  if (isRecord(raw.properties)) {
    properties = new Map();
    for (const [k, v] of Object.entries(raw.properties)) if (isRecord(v)) properties.set(k, schemaNode(v));
  }
  const ap = raw.additionalProperties;
  const additionalProperties = isRecord(ap) ? schemaNode(ap) : typeof ap === "boolean" ? ap : undefined;
  const enumValues = Array.isArray(raw.enum) ? raw.enum : undefined;
  return {
    raw,
    type,
    types: intOrString ? ["integer", "string"] : type ? [type] : [],
    nullable: raw.nullable === true,
    format: supportedFormat(type, str(raw.format) ?? ""),
    ...(enumValues ? { enum: enumValues } : {}),
    maximum: num(raw.maximum),
    exclusiveMaximum: raw.exclusiveMaximum === true,
    minimum: num(raw.minimum),
    exclusiveMinimum: raw.exclusiveMinimum === true,
    multipleOf: num(raw.multipleOf),
    maxLength: num(raw.maxLength),
    minLength: num(raw.minLength),
    pattern,
    patternRegExp: pattern !== undefined ? goPatternToRegExp(pattern) : undefined,
    maxItems: num(raw.maxItems),
    minItems: num(raw.minItems),
    uniqueItems: raw.uniqueItems === true,
    maxProperties: num(raw.maxProperties),
    minProperties: num(raw.minProperties),
    required: Array.isArray(raw.required)
      ? raw.required.filter((r): r is string => typeof r === "string")
      : [],
    properties,
    additionalProperties,
    items: isRecord(raw.items) ? schemaNode(raw.items) : undefined,
    allOf: nodes(raw.allOf),
    anyOf: nodes(raw.anyOf),
    oneOf: nodes(raw.oneOf),
    not: isRecord(raw.not) ? schemaNode(raw.not) : undefined,
    intOrString,
    preserveUnknownFields: raw["x-kubernetes-preserve-unknown-fields"] === true,
    embeddedResource: raw["x-kubernetes-embedded-resource"] === true,
    listType: str(raw["x-kubernetes-list-type"]),
    listMapKeys: Array.isArray(raw["x-kubernetes-list-map-keys"])
      ? raw["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string")
      : [],
    mapType: str(raw["x-kubernetes-map-type"]),
    hasDefault: raw.default !== undefined,
    default: raw.default,
    validations: rules(raw["x-kubernetes-validations"]),
  };
}

/** The schema of a map value: the additionalProperties schema, if any. */
export function additionalSchema(node: SchemaNode): SchemaNode | undefined {
  return typeof node.additionalProperties === "object" ? node.additionalProperties : undefined;
}

/** Deep copy of a JSON value (defaults must never be shared between objects). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

/** JSON with sorted keys: equal values give equal strings (Go's reflect.DeepEqual on JSON). */
export function canonicalJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonicalJson).join(",")}]`;
  if (isRecord(x)) {
    const keys = Object.keys(x).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(x[k])}`).join(",")}}`;
  }
  if (typeof x === "bigint") return x.toString();
  return JSON.stringify(x ?? null);
}
