/**
 * Bytes the controller's caches keep per object (issue 29: 10,000 x 3 under 300 MiB RSS).
 *
 * Builds N PetSets with P pods and one PetSetVersion each from the shapes of
 * bench/support/cache-fixtures.json (names, uids, IPs and times made unique per object, as on
 * the wire), passes every object through what the controller does with it (the page's
 * deserialization, the cache's trim, the informer's map, the indexes, and the parse / pod view a
 * sync builds and keeps), and reports the heap kept per object after a full GC. Needs
 * `--expose-gc`:
 *
 *   node --expose-gc dist/bench/cache-bytes.js [--petsets 5000] [--pets 3] [--path list|watch]
 *
 * `list` (the default) is what a cold start holds: client-node's typed models (Date objects,
 * model classes); `watch` is an object replaced by a watch event (plain JSON).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
// What client-node's typed list calls turn each item into (model classes, Date objects).
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import { Command } from "commander";
import { Labels } from "../src/api/names.js";
import { CacheIndexes } from "../src/controller/cache-index.js";
import { trimPod } from "../src/controller/cache-trim.js";
import { INDEXES, KEYS, trimPetSet, trimVersion } from "../src/controller/informers.js";
import { cachedPodView, cachedVersions, parsePetSet } from "../src/controller/parsed-cache.js";
import { createLogger } from "../src/util/logger.js";

interface Fixtures {
  pod: V1Pod;
  petSet: KubernetesObject;
  version: KubernetesObject;
}

const fixtures = JSON.parse(
  readFileSync(new URL("../../bench/support/cache-fixtures.json", import.meta.url), "utf8"),
) as Fixtures;

const NS = "bench-scale-x1y2z3";

/** A wire text with every NAMESPACE placeholder and per-object value filled in. */
function wire(obj: unknown, subst: Record<string, string>): string {
  let text = JSON.stringify(obj).replaceAll("NAMESPACE", NS);
  for (const [from, to] of Object.entries(subst)) text = text.replaceAll(from, to);
  return text;
}

/** A time `s` seconds after the fixture's, in the API's format (many objects share a second). */
function time(s: number): string {
  return new Date(Date.UTC(2026, 11, 5, 17, 0, 0) + s * 1000).toISOString().replace(".000", "");
}

function hex(n: number): string {
  return Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
}

/** The wire texts of PetSet `k`, its version and its pods, made when asked (never all held at once). */
interface Texts {
  petSet(k: number): string;
  version(k: number): string;
  pods(k: number): string[];
}

function texts(petSets: number, pets: number): Texts {
  const fixturePetSetUid = fixtures.petSet.metadata?.uid ?? "";
  // Per PetSet: its uid, content hash and creation second, shared by its version and pods.
  const bases = Array.from({ length: petSets }, (_, k) => ({
    [fixturePetSetUid]: randomUUID(),
    "56bd49ca27": hex(10),
    "2026-12-05T17:34:5": time(Math.floor(k / 10)).slice(0, -2),
  }));
  const base = (k: number) => bases[k] ?? {};
  return {
    petSet: (k) =>
      wire(fixtures.petSet, { ...base(k), '"s-0"': `"s-${k}"`, "s-0:": `s-${k}:`, "app=s-0": `app=s-${k}` }),
    version: (k) =>
      wire(fixtures.version, {
        ...base(k),
        [fixtures.version.metadata?.uid ?? ""]: randomUUID(),
        '"s-0-v1"': `"s-${k}-v1"`,
        '"s-0"': `"s-${k}"`,
      }),
    pods: (k) =>
      Array.from({ length: pets }, (_, j) =>
        wire(fixtures.pod, {
          ...base(k),
          [fixtures.pod.metadata?.uid ?? ""]: randomUUID(),
          '"s-0-0"': `"s-${k}-${j}"`,
          '"s-0"': `"s-${k}"`,
          '"petset.dev/pod-index":"0"': `"petset.dev/pod-index":"${j}"`,
          "10.244.1.119": `10.${(k >> 8) & 255}.${k & 255}.${j}`,
          f3dc1c1b5a701e6238955475bc813d4c87b9c83fa61dceb6067053b98b9c6020: hex(64),
          '"574"': `"${1000 + k * 10 + j}"`,
        }),
      ),
  };
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** The informer's store and the indexes of one cache, fed as client-node feeds them. */
function store<T extends KubernetesObject>(resource: string) {
  const objects = new Map<string, Map<string, T>>();
  const kept = INDEXES[resource] ?? [];
  const indexes = new CacheIndexes<T>(kept.map((i) => KEYS[i]));
  return {
    /** By label petset.dev/petset when the cache keeps that index, else a scan (PetSets). */
    ofPetSet: (ns: string, ps: string) =>
      kept.includes("ofPetSet")
        ? indexes.list(kept.indexOf("ofPetSet"), ns, ps)
        : [...(objects.get(ns)?.values() ?? [])].filter((o) => o.metadata?.labels?.[Labels.petSet] === ps),
    get: (name: string) => objects.get(NS)?.get(name),
    add(obj: T) {
      const ns = obj.metadata?.namespace ?? "";
      let m = objects.get(ns);
      if (!m) {
        m = new Map();
        objects.set(ns, m);
      }
      m.set(obj.metadata?.name ?? "", obj);
      indexes.put(obj);
    },
    size: () => [...objects.values()].reduce((n, m) => n + m.size, 0),
  };
}

function main(): void {
  const program = new Command()
    .option("--petsets <n>", "PetSets", "5000")
    .option("--pets <n>", "pods per PetSet", "3")
    .option("--path <p>", "list (typed models, as a cold start) or watch (plain JSON)", "list");
  const opts = program.parse(process.argv).opts<{ petsets: string; pets: string; path: string }>();
  const n = Number(opts.petsets);
  const p = Number(opts.pets);
  const typed = opts.path === "list";
  const logger = createLogger("silent");
  const all = texts(n, p);
  const decode = <T>(text: string, type: string): T =>
    (typed && type !== "" ? ObjectSerializer.deserialize(JSON.parse(text), type, "") : JSON.parse(text)) as T;

  const kept: unknown[] = [];
  const report: Record<string, number> = {};
  const measure = (label: string, count: number, build: () => unknown) => {
    const before = heapUsed();
    kept.push(build());
    report[label] = Math.round((heapUsed() - before) / count);
  };

  const pods = store<V1Pod>("pods");
  const petSets = store<KubernetesObject>("petsets");
  const versions = store<KubernetesObject>("petsetversions");
  measure("pod: cached (trimmed, stored, indexed)", n * p, () => {
    for (let k = 0; k < n; k++)
      for (const t of all.pods(k)) {
        const pod = decode<V1Pod>(t, "V1Pod");
        trimPod(pod);
        pods.add(pod);
      }
  });
  measure("pod: + the planner's view a sync keeps", n * p, () => {
    for (let k = 0; k < n; k++) for (const pod of pods.ofPetSet(NS, `s-${k}`)) cachedPodView(pod);
  });
  measure("PetSet: cached (trimmed, stored, indexed)", n, () => {
    for (let k = 0; k < n; k++) {
      const t = all.petSet(k);
      const ps = decode<KubernetesObject>(t, "");
      trimPetSet(ps);
      petSets.add(ps);
    }
  });
  measure("PetSet: + the parsed PetSet a sync keeps", n, () => {
    for (let k = 0; k < n; k++) {
      const ps = petSets.get(`s-${k}`);
      if (ps === undefined || !parsePetSet(ps).success) throw new Error(`PetSet s-${k} does not parse`);
    }
  });
  measure("version: cached (trimmed, stored, indexed)", n, () => {
    for (let k = 0; k < n; k++) {
      const t = all.version(k);
      const v = decode<KubernetesObject>(t, "");
      trimVersion(v);
      versions.add(v);
    }
  });
  measure("version: + the parsed version a sync keeps", n, () => {
    const caches = { versions: { ofPetSet: (ns: string, ps: string) => versions.ofPetSet(ns, ps) } } as never;
    for (let k = 0; k < n; k++)
      if (cachedVersions(caches, logger, NS, `s-${k}`).length !== 1)
        throw new Error(`version of s-${k} does not parse`);
  });
  if (pods.size() !== n * p || versions.size() !== n || petSets.size() !== n)
    throw new Error("not every object was stored");
  const r = Object.values(report);
  const perSet = p * ((r[0] ?? 0) + (r[1] ?? 0)) + r.slice(2).reduce((a, b) => a + b, 0);
  heapUsed();
  const mem = process.memoryUsage();
  const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
  console.log(
    JSON.stringify(
      {
        parameters: {
          petSets: n,
          pets: p,
          path: opts.path,
          node: process.version,
          execArgv: process.execArgv,
        },
        bytesPerObject: report,
        bytesPerPetSetWithPodsAndVersion: perSet,
        // This process after a full GC, everything cached (client-node and zod loaded, no controller).
        processMiB: {
          rss: mib(mem.rss),
          heapUsed: mib(mem.heapUsed),
          heapTotal: mib(mem.heapTotal),
        },
      },
      null,
      2,
    ),
  );
}

main();
