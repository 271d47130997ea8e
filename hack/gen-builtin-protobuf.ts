/**
 * Generates the protobuf descriptors the embedded API server needs to decode the
 * `application/vnd.kubernetes.protobuf` bodies kubectl sends for typed creates
 * (`kubectl create namespace|configmap|secret|serviceaccount|service`). Field numbers and
 * types come from the k8s.io/api and apimachinery `generated.proto`; JSON names, inline
 * embedding, omitempty and pointer-ness from the Go struct tags in `types.go`.
 * Output: src/apiserver-shim/protobuf/descriptors.json (committed).
 * Run like hack/gen-builtin-openapi.ts (tsc to a temp dir, then node).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const K8S = "v0.33.5";

interface Field {
  n: number;
  json: string;
  type: string;
  repeated?: boolean;
  map?: [string, string];
  inline?: boolean;
  omitEmpty?: boolean;
  pointer?: boolean;
}

type Messages = Record<string, Record<number, Field>>;

function moduleDir(mod: string): string {
  const out = execFileSync("go", ["mod", "download", "-json", `${mod}@${K8S}`], {
    encoding: "utf8",
    env: { ...process.env, GO111MODULE: "on" },
  });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

const SCALARS = new Set(["string", "int32", "int64", "uint32", "uint64", "bool", "bytes", "double", "float"]);

/** Parses messages of one generated.proto: name → number → partial field. */
function parseProto(text: string): {
  pkg: string;
  messages: Record<string, Record<number, Omit<Field, "json">>>;
} {
  const pkg = /^package ([\w.]+);/m.exec(text)![1]!;
  const messages: Record<string, Record<number, Omit<Field, "json">>> = {};
  let current: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    const open = /^message (\w+) \{$/.exec(line);
    if (open) {
      current = `${pkg}.${open[1]}`;
      messages[current] = {};
      continue;
    }
    if (line === "}") {
      current = undefined;
      continue;
    }
    if (!current) continue;
    const map = /^map<(\w+), ([\w.]+)> (\w+) = (\d+);$/.exec(line);
    if (map) {
      messages[current]![Number(map[4])] = {
        n: Number(map[4]),
        type: "map",
        map: [map[1]!, qualify(map[2]!, pkg)],
      };
      continue;
    }
    const f = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(line);
    if (f) {
      const field: Omit<Field, "json"> = { n: Number(f[4]), type: qualify(f[2]!, pkg) };
      if (f[1] === "repeated") field.repeated = true;
      messages[current]![field.n] = field;
    }
  }
  return { pkg, messages };
}

function qualify(t: string, pkg: string): string {
  if (SCALARS.has(t)) return t;
  return t.startsWith(".") ? t.slice(1) : `${pkg}.${t}`;
}

/** Go struct tags: message name → protobuf number → JSON facts. */
function parseGo(
  dir: string,
): Record<string, Record<number, { json: string; inline: boolean; omitEmpty: boolean; pointer: boolean }>> {
  const out: Record<
    string,
    Record<number, { json: string; inline: boolean; omitEmpty: boolean; pointer: boolean }>
  > = {};
  for (const file of readdirSync(dir).filter(
    (f) => f.endsWith(".go") && !f.endsWith("_test.go") && !f.startsWith("zz_"),
  )) {
    let current: string | undefined;
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      const open = /^type (\w+) struct \{/.exec(line);
      if (open) {
        current = open[1];
        out[current!] = {};
        continue;
      }
      if (/^\}/.test(line)) current = undefined;
      if (!current) continue;
      const m = /^\s+(?:(\w+)\s+)?([^\s`]+)\s+`json:"([^"]*)"[^`]*protobuf:"[a-z0-9]+,(\d+),/.exec(line);
      if (!m) continue;
      const [jsonName = "", ...opts] = m[3]!.split(",");
      out[current]![Number(m[4])] = {
        json: jsonName,
        inline: opts.includes("inline"),
        omitEmpty: opts.includes("omitempty"),
        pointer: m[2]!.startsWith("*"),
      };
    }
  }
  return out;
}

const PACKAGES: { mod: string; path: string }[] = [
  { mod: "k8s.io/api", path: "core/v1" },
  { mod: "k8s.io/api", path: "coordination/v1" },
  { mod: "k8s.io/api", path: "events/v1" },
  { mod: "k8s.io/api", path: "apps/v1" },
  { mod: "k8s.io/api", path: "batch/v1" },
  { mod: "k8s.io/apimachinery", path: "pkg/apis/meta/v1" },
];

/** Kinds whose protobuf bodies we accept, and where decoding starts. */
const ROOTS: Record<string, string> = {
  "v1/Namespace": "k8s.io.api.core.v1.Namespace",
  "v1/ConfigMap": "k8s.io.api.core.v1.ConfigMap",
  "v1/Secret": "k8s.io.api.core.v1.Secret",
  "v1/ServiceAccount": "k8s.io.api.core.v1.ServiceAccount",
  "v1/Service": "k8s.io.api.core.v1.Service",
  "v1/Pod": "k8s.io.api.core.v1.Pod",
  "v1/PersistentVolumeClaim": "k8s.io.api.core.v1.PersistentVolumeClaim",
  "v1/PersistentVolume": "k8s.io.api.core.v1.PersistentVolume",
  "v1/Node": "k8s.io.api.core.v1.Node",
  "v1/Event": "k8s.io.api.core.v1.Event",
  "v1/Binding": "k8s.io.api.core.v1.Binding",
  "coordination.k8s.io/v1/Lease": "k8s.io.api.coordination.v1.Lease",
  "batch/v1/Job": "k8s.io.api.batch.v1.Job",
  "events.k8s.io/v1/Event": "k8s.io.api.events.v1.Event",
  "apps/v1/StatefulSet": "k8s.io.api.apps.v1.StatefulSet",
  "apps/v1/ControllerRevision": "k8s.io.api.apps.v1.ControllerRevision",
  "meta.k8s.io/v1/DeleteOptions": "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
  "v1/DeleteOptions": "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
};

/** Decoded by hand in the shim (well-known k8s wrappers). */
const SPECIAL = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
  "k8s.io.apimachinery.pkg.api.resource.Quantity",
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
]);

function main(): void {
  const all: Messages = {};
  for (const p of PACKAGES) {
    const dir = join(moduleDir(p.mod), p.path);
    const { messages } = parseProto(readFileSync(join(dir, "generated.proto"), "utf8"));
    const go = parseGo(dir);
    for (const [full, fields] of Object.entries(messages)) {
      const short = full.slice(full.lastIndexOf(".") + 1);
      const tags = go[short] ?? {};
      all[full] = {};
      for (const f of Object.values(fields)) {
        const t = tags[f.n];
        const field: Field = { ...f, json: t?.json || f.type.slice(f.type.lastIndexOf(".") + 1) };
        if (t?.inline) field.inline = true;
        if (t?.omitEmpty) field.omitEmpty = true;
        if (t?.pointer) field.pointer = true;
        all[full]![f.n] = field;
      }
    }
  }
  const keep: Messages = {};
  const queue = Object.values(ROOTS);
  while (queue.length) {
    const name = queue.pop()!;
    if (keep[name] || SPECIAL.has(name) || SCALARS.has(name)) continue;
    const msg = all[name];
    if (!msg) throw new Error(`message ${name} not found`);
    keep[name] = msg;
    for (const f of Object.values(msg)) {
      if (f.map) queue.push(f.map[1]);
      else queue.push(f.type);
    }
  }
  const sorted = Object.fromEntries(
    Object.keys(keep)
      .sort()
      .map((k) => [k, keep[k]]),
  );
  const out = join(process.cwd(), "src", "apiserver-shim", "protobuf", "descriptors.json");
  writeFileSync(out, `${JSON.stringify({ version: K8S, roots: ROOTS, messages: sorted })}\n`);
  process.stdout.write(`${Object.keys(sorted).length} messages → ${out}\n`);
}

main();
