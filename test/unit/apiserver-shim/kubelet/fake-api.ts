/**
 * A hand-written fake of the API for the stage runner: an in-memory store with
 * resourceVersions, merge patches with resourceVersion preconditions, UID-preconditioned
 * deletes and finalizers, and informer-style notifications delivered a microtask later.
 * It records every write with the virtual time it happened at, for golden files.
 */
import { pino } from "pino";
import { FakeClock } from "../../../../src/apiserver-shim/kubelet/clock.js";
import type { Write } from "../../../../src/apiserver-shim/kubelet/engine.js";
import { type KubeObject, objectKey } from "../../../../src/apiserver-shim/kubelet/objects.js";
import {
  type ObjectSource,
  StageRunner,
  StageWriteError,
  type StageWriter,
} from "../../../../src/apiserver-shim/kubelet/runner.js";
import {
  loadDefaultStages,
  type StageConfig,
  type StageResource,
} from "../../../../src/apiserver-shim/kubelet/stages.js";

type Json = Record<string, unknown>;
export type Recorded = Json & { t: number; stage: string; op: string };

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export const NodeNames = ["petset-node-0", "petset-node-1", "petset-node-2"];

export class FakeApi implements ObjectSource, StageWriter {
  readonly clock = new FakeClock();
  readonly start = this.clock.now();
  readonly log: Recorded[] = [];
  readonly volumes = new Map<string, Json>();
  /** Fail the next writes with these reasons, in order (error injection). */
  readonly failNext: ("Conflict" | "Unavailable")[] = [];
  private readonly store = new Map<StageResource, Map<string, KubeObject>>();
  private rv = 1;
  private uid = 1;
  readonly runner: StageRunner;

  constructor(config: StageConfig = loadDefaultStages(), managedNodes = NodeNames) {
    const logger = pino({ level: "silent" });
    this.runner = new StageRunner({
      config,
      clock: this.clock,
      source: this,
      writer: this,
      managedNodes,
      logger,
    });
  }

  get(resource: StageResource, key: string): KubeObject | undefined {
    return this.store.get(resource)?.get(key);
  }

  list(resource: StageResource): readonly KubeObject[] {
    return [...(this.store.get(resource)?.values() ?? [])];
  }

  /** A user (or controller) creates an object. */
  create(resource: StageResource, obj: Json): KubeObject {
    const meta = (obj.metadata ?? {}) as Json;
    const created = {
      ...obj,
      metadata: {
        namespace: resource === "nodes" ? undefined : "default",
        ...meta,
        uid: `uid-${this.uid++}`,
        creationTimestamp: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, "Z"),
      },
    } as KubeObject;
    return this.put(resource, created);
  }

  /** A user (or controller) changes an object. */
  update(resource: StageResource, key: string, change: (obj: Json) => void): KubeObject {
    const obj = structuredClone(this.get(resource, key)) as Json | undefined;
    if (!obj) throw new Error(`${resource} ${key} not found`);
    change(obj);
    return this.put(resource, obj as KubeObject);
  }

  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms);
  }

  async apply(writes: readonly Write[], context: { stage: string }): Promise<void> {
    for (const w of writes) {
      const failure = w.op === "event" ? undefined : this.failNext.shift();
      if (failure) throw new StageWriteError(failure, w, `injected ${failure}`);
      this.log.push({ t: this.clock.now() - this.start, stage: context.stage, ...summarize(w) });
      this.one(w);
    }
  }

  async read(
    resource: StageResource,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    return this.get(resource, objectKey({ name, namespace }));
  }

  private one(w: Write): void {
    switch (w.op) {
      case "patchStatus":
      case "patch": {
        const cur = this.mustGet(w.resource, w.namespace, w.name, w);
        if (w.resourceVersion && w.resourceVersion !== cur.metadata.resourceVersion) {
          throw new StageWriteError("Conflict", w, "the object has been modified");
        }
        const patch = w.op === "patch" ? { ...w.patch } : { status: w.status };
        this.put(w.resource, mergePatch(cur, patch) as KubeObject);
        return;
      }
      case "bind": {
        const cur = this.mustGet("pods", w.namespace, w.name, w);
        if (getNodeName(cur)) throw new StageWriteError("Conflict", w, "pod is already assigned");
        this.put("pods", mergePatch(cur, { spec: { nodeName: w.node } }) as KubeObject);
        return;
      }
      case "delete": {
        const cur = this.mustGet(w.resource, w.namespace, w.name, w);
        if (w.uid && w.uid !== cur.metadata.uid) throw new StageWriteError("Conflict", w, "uid precondition");
        if ((cur.metadata.finalizers ?? []).length > 0) {
          const at = cur.metadata.deletionTimestamp ?? new Date(this.clock.now()).toISOString();
          const meta = { deletionTimestamp: at, deletionGracePeriodSeconds: 0 };
          this.put(w.resource, mergePatch(cur, { metadata: meta }) as KubeObject);
          return;
        }
        this.store.get(w.resource)?.delete(objectKey(cur.metadata));
        queueMicrotask(() => this.runner.forget(w.resource, cur));
        return;
      }
      case "createVolume": {
        const name = String((w.body.metadata as Json).name);
        this.volumes.set(name, w.body);
        return;
      }
      case "patchVolumeStatus": {
        const volume = this.volumes.get(w.name);
        if (!volume) throw new StageWriteError("NotFound", w, `persistentvolume ${w.name} not found`);
        this.volumes.set(w.name, mergePatch(volume, { status: w.status }) as Json);
        return;
      }
      case "event":
        return;
    }
  }

  /** An object removed at once (a force delete), the runner told a microtask later. */
  remove(resource: StageResource, key: string): void {
    const cur = this.store.get(resource)?.get(key);
    if (!cur) return;
    this.store.get(resource)?.delete(key);
    queueMicrotask(() => this.runner.forget(resource, cur));
  }

  private mustGet(
    resource: StageResource,
    namespace: string | undefined,
    name: string,
    w: Write,
  ): KubeObject {
    const cur = this.get(resource, objectKey({ name, namespace }));
    if (!cur) throw new StageWriteError("NotFound", w, `${resource} ${name} not found`);
    return cur;
  }

  private put(resource: StageResource, obj: KubeObject): KubeObject {
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.rv++) } };
    let objects = this.store.get(resource);
    if (!objects) {
      objects = new Map();
      this.store.set(resource, objects);
    }
    objects.set(objectKey(stored.metadata), stored);
    queueMicrotask(() => this.runner.observe(resource, stored));
    return stored;
  }
}

function getNodeName(obj: KubeObject): string | undefined {
  const spec = obj.spec as Json | undefined;
  return typeof spec?.nodeName === "string" && spec.nodeName ? spec.nodeName : undefined;
}

/** A write as the golden files show it: events reduced to what a reader checks. */
function summarize(w: Write): Json & { op: string } {
  if (w.op === "event") {
    const b = w.body;
    const involved = b.involvedObject as Json;
    return {
      op: "event",
      object: `${involved.kind}/${involved.name}`,
      type: b.type,
      reason: b.reason,
      message: b.message,
    };
  }
  if (w.op === "createVolume" || w.op === "patchVolumeStatus") return { ...w };
  const { op, ...rest } = w;
  return { op, ...rest };
}

/** A pod as a PetSet would create it (unscheduled). */
export function pod(name: string, images: Record<string, string>, extra: Json = {}): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "web" } },
    spec: { containers: Object.entries(images).map(([n, image]) => ({ name: n, image })) },
    ...extra,
  };
}

/** Managed nodes, already Ready (node-ready is tested on its own). */
export async function readyNodes(api: FakeApi): Promise<void> {
  for (const [i, name] of NodeNames.entries()) {
    api.create("nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name },
      spec: { podCIDR: `10.244.${i}.0/24` },
    });
  }
  await api.advance(0);
  api.log.length = 0;
}

export function podOf(api: FakeApi, name: string): Json {
  const obj = api.get("pods", `default/${name}`);
  if (!obj) throw new Error(`pod ${name} not found`);
  return obj as Json;
}

export function condition(obj: Json, type: string): string | undefined {
  const status = obj.status as { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.find((c) => c.type === type)?.status;
}
