/**
 * StageWriter over @kubernetes/client-node: status writes are JSON merge patches on the
 * status subresource, carrying `metadata.resourceVersion` as a precondition when the
 * engine set one (the patch replaces whole lists, so a stale one would undo someone
 * else's change). Deletions carry a UID precondition: a pet is recreated under the same
 * name, and the new pod must never be deleted by a stage meant for the old one.
 */
import {
  ApiException,
  type CoreV1Api,
  type CoreV1Event,
  PatchStrategy,
  setHeaderOptions,
  type V1PersistentVolume,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Write } from "./engine.js";
import type { KubeObject } from "./objects.js";
import { StageWriteError, type StageWriter } from "./runner.js";
import type { StageResource } from "./stages.js";

/** What the server serves, from discovery of the core/v1 group. */
export interface ServerCapabilities {
  /** pods/binding: bind through the subresource; else merge-patch spec.nodeName. */
  binding: boolean;
  /** persistentvolumes: create PVs for claims; else only spec.volumeName and status. */
  volumes: boolean;
  persistentVolumeClaims: boolean;
  events: boolean;
}

export async function discoverCapabilities(core: CoreV1Api): Promise<ServerCapabilities> {
  const list = await core.getAPIResources();
  const names = new Set(list.resources.map((r) => r.name));
  return {
    binding: names.has("pods/binding"),
    volumes: names.has("persistentvolumes"),
    persistentVolumeClaims: names.has("persistentvolumeclaims"),
    events: names.has("events"),
  };
}

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** Informer and client objects may hold Dates and class instances; the engine wants JSON. */
export function toPlain(obj: unknown): KubeObject {
  return JSON.parse(JSON.stringify(obj)) as KubeObject;
}

export function statusCode(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

export class KubeStageWriter implements StageWriter {
  /**
   * `heartbeat`: the client node writes go through (their heartbeats), on connections of its
   * own, as the kubelet's HeartbeatClient: behind thousands of pod status writes in one
   * connection pool they waited minutes, the node lifecycle controller took the nodes for lost
   * and marked every pod not ready (a 10,000 x 3 populate that never finished, issue 29).
   */
  constructor(
    private readonly core: CoreV1Api,
    private readonly caps: ServerCapabilities,
    private readonly logger: Logger,
    private readonly heartbeat: CoreV1Api = core,
  ) {}

  async apply(writes: readonly Write[], context: { stage: string }): Promise<void> {
    for (const w of writes) {
      try {
        await this.one(w);
      } catch (err) {
        const code = statusCode(err);
        if (w.op === "event") {
          this.logger.debug({ err, reason: w.body.reason }, "simulated kubelet: event not recorded");
          continue;
        }
        if (w.op === "createVolume" && code === 409) continue; // already provisioned
        const reason = code === 409 ? "Conflict" : code === 404 ? "NotFound" : "Unavailable";
        const ns = "namespace" in w && w.namespace ? `${w.namespace}/` : "";
        const what = "name" in w ? `${w.op} ${ns}${w.name}` : w.op;
        throw new StageWriteError(reason, w, `stage ${context.stage}: ${what}: ${describe(err)}`, {
          cause: err,
        });
      }
    }
  }

  async read(
    resource: StageResource,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const ns = namespace ?? "default";
    try {
      if (resource === "pods") return toPlain(await this.core.readNamespacedPod({ name, namespace: ns }));
      if (resource === "nodes") return toPlain(await this.core.readNode({ name }));
      return toPlain(await this.core.readNamespacedPersistentVolumeClaim({ name, namespace: ns }));
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw err;
    }
  }

  private async one(w: Write): Promise<unknown> {
    const core = "resource" in w && w.resource === "nodes" ? this.heartbeat : this.core;
    switch (w.op) {
      case "patchStatus": {
        const body = {
          ...(w.resourceVersion ? { metadata: { resourceVersion: w.resourceVersion } } : {}),
          status: w.status,
        };
        const ns = w.namespace ?? "default";
        if (w.resource === "pods")
          return core.patchNamespacedPodStatus({ name: w.name, namespace: ns, body }, mergePatch);
        if (w.resource === "nodes") return core.patchNodeStatus({ name: w.name, body }, mergePatch);
        return core.patchNamespacedPersistentVolumeClaimStatus(
          { name: w.name, namespace: ns, body },
          mergePatch,
        );
      }
      case "patch": {
        const meta = {
          ...(w.patch.metadata ?? {}),
          ...(w.resourceVersion ? { resourceVersion: w.resourceVersion } : {}),
        };
        const body = { ...w.patch, metadata: meta };
        const ns = w.namespace ?? "default";
        if (w.resource === "pods")
          return core.patchNamespacedPod({ name: w.name, namespace: ns, body }, mergePatch);
        if (w.resource === "nodes") return core.patchNode({ name: w.name, body }, mergePatch);
        return core.patchNamespacedPersistentVolumeClaim({ name: w.name, namespace: ns, body }, mergePatch);
      }
      case "bind": {
        if (!this.caps.binding) {
          const body = { metadata: w.uid ? { uid: w.uid } : {}, spec: { nodeName: w.node } };
          return core.patchNamespacedPod({ name: w.name, namespace: w.namespace, body }, mergePatch);
        }
        return core.createNamespacedPodBinding({
          name: w.name,
          namespace: w.namespace,
          body: {
            apiVersion: "v1",
            kind: "Binding",
            metadata: { name: w.name, namespace: w.namespace, ...(w.uid ? { uid: w.uid } : {}) },
            target: { apiVersion: "v1", kind: "Node", name: w.node },
          },
        });
      }
      case "delete": {
        const body = { gracePeriodSeconds: 0, ...(w.uid ? { preconditions: { uid: w.uid } } : {}) };
        const ns = w.namespace ?? "default";
        const args = { name: w.name, namespace: ns, gracePeriodSeconds: 0, body };
        if (w.resource === "pods") return core.deleteNamespacedPod(args);
        if (w.resource === "persistentvolumeclaims") return core.deleteNamespacedPersistentVolumeClaim(args);
        return core.deleteNode({ name: w.name, gracePeriodSeconds: 0, body });
      }
      case "createVolume":
        if (!this.caps.volumes) return undefined;
        return core.createPersistentVolume({ body: w.body as unknown as V1PersistentVolume });
      case "patchVolumeStatus":
        if (!this.caps.volumes) return undefined;
        return core.patchPersistentVolumeStatus({ name: w.name, body: { status: w.status } }, mergePatch);
      case "event":
        if (!this.caps.events) return undefined;
        // Timestamps are RFC 3339 strings, which the client's serializer passes through.
        return core.createNamespacedEvent({ namespace: w.namespace, body: w.body as unknown as CoreV1Event });
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = err.body;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && "message" in parsed)
        return `${err.code} ${String(parsed.message)}`;
    } catch {
      // not JSON: use the raw body
    }
    return `${err.code} ${text.slice(0, 200)}`;
  }
  return err instanceof Error ? err.message : String(err);
}
