/**
 * The embedded attach/detach controller (kube-controller-manager's attachdetach, with the
 * CSI external-attacher's part): reads pods, claims, volumes, nodes and VolumeAttachments
 * from the store, asks the pure planner (attach-detach-plan.ts) and writes: creates
 * VolumeAttachments and marks them attached, deletes those no pod needs, records
 * `FailedAttachVolume` Multi-Attach Events (once per pod and volume). Like kube it keeps in
 * memory when a held detach was first wanted, so a restarted server waits the full 6 minutes.
 */

import { VOLUME_ATTACHMENTS_GR } from "../builtin/volume-attachments.js";
import { ApiError } from "../errors.js";
import { ProvisionerName } from "../kubelet/node-status.js";
import { deleteObject } from "../registry/deletion.js";
import type { GenericStore } from "../registry/generic-store.js";
import type { ResourceRegistry } from "../registry/resource-registry.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { planAttachments } from "./attach-detach-plan.js";
import { recordPodWarning } from "./pod-event.js";
import { systemContext } from "./system-context.js";

const MANAGER = "kube-controller-manager";
/** Store kinds whose changes can change what is attached. */
export const ATTACH_INPUTS: ReadonlySet<string> = new Set([
  "/persistentvolumeclaims",
  "/persistentvolumes",
  "/nodes",
  VOLUME_ATTACHMENTS_GR,
]);

/** Whether the pod mounts a claim (only such pods matter here). */
export function mountsClaim(pod: KubeObject): boolean {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  return volumes.some((v) => isPlainObject(v) && isPlainObject(v.persistentVolumeClaim));
}

export class AttachDetachController {
  private detachWantedAt = new Map<string, number>();
  private reported = new Set<string>();

  constructor(
    private readonly store: GenericStore,
    private readonly registry: ResourceRegistry,
  ) {}

  /** One pass; returns the delay until a held detach is due, if any. */
  pass(): number | undefined {
    const vaDef = this.registry.get("storage.k8s.io", "v1", "volumeattachments");
    if (!vaDef) return undefined;
    const objects = this.store.objects;
    const now = this.store.clock.now().getTime();
    const byName = (gr: string, namespaced: boolean) =>
      new Map(
        objects
          .list(gr)
          .map((o) => [namespaced ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!, o]),
      );
    const plan = planAttachments({
      pods: objects.list("/pods").filter(mountsClaim),
      claims: byName("/persistentvolumeclaims", true),
      volumes: byName("/persistentvolumes", false),
      nodes: byName("/nodes", false),
      attachments: objects.list(VOLUME_ATTACHMENTS_GR),
      detachWantedAt: this.detachWantedAt,
      defaultAttacher: ProvisionerName,
      now,
    });
    this.detachWantedAt = plan.held;
    const ctx = systemContext(this.store.clock, MANAGER);
    for (const a of plan.create) {
      try {
        const created = this.store.create(
          vaDef,
          undefined,
          {
            apiVersion: "storage.k8s.io/v1",
            kind: "VolumeAttachment",
            metadata: { name: a.name },
            spec: { attacher: a.attacher, nodeName: a.node, source: { persistentVolumeName: a.volume } },
          },
          ctx,
        );
        const attached = deepClone(created);
        attached.status = { attached: true };
        this.store.commitUpdate(vaDef, created, attached, { ...ctx, subresource: "status" });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    for (const name of plan.delete) {
      try {
        deleteObject(this.store, vaDef, undefined, name, {}, ctx);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    // One Event per pod and volume while the error lasts (again if it comes back later).
    const reported = new Set<string>();
    for (const m of plan.multiAttach) {
      const key = `${m.pod.metadata.uid}/${m.volume}`;
      reported.add(key);
      if (!this.reported.has(key)) this.event(m.pod, m.message, now);
    }
    this.reported = reported;
    return plan.checkAt === undefined ? undefined : plan.checkAt - now;
  }

  private event(pod: KubeObject, message: string, now: number): void {
    recordPodWarning(
      this.registry,
      this.store,
      pod,
      { reason: "FailedAttachVolume", message, component: "attachdetach-controller", suffix: "a" },
      now,
    );
  }
}
