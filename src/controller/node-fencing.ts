/**
 * NodeFencing: the writes that move a pet off a lost node once its fence hook succeeded
 * (planner/node-failure.ts, docs/failover.md). Thin adapter; every write goes through the
 * fenced kubeconfig it is given, so a replica without the Lease writes nothing. The contract of
 * a move, in the order the executor calls it:
 *  1. The node is read uncached (a GET). Ready=True: nothing is done and it answers
 *     "ready" (the fence was for a node that came back; the pet stays). Its Ready condition
 *     changed after the loss time the plan saw: "changed", nothing is done (it came back and
 *     was lost again; the fence may be for the earlier loss).
 *  2. With `taintOutOfService`, the node gets node.kubernetes.io/out-of-service=nodeshutdown:
 *     NoExecute (a JSON patch with a test on its resourceVersion: a concurrent change retries
 *     on the next sync). A node that is gone is not tainted.
 *  3. The pod is force-deleted: grace period 0, its uid as precondition (never another
 *     incarnation). Already gone: "pod-gone" (the caller's view was stale).
 *  4. The VolumeAttachments on that node of the volumes bound to the pet's claims are deleted
 *     (uid precondition; NotFound counts as done).
 */
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1Node,
} from "@kubernetes/client-node";
import { OutOfServiceTaint } from "../api/index.js";
import { isNotFound } from "./api-errors.js";
import type { WriteCounter } from "./write-counter.js";

export interface NodeFencing {
  /**
   * Steps 1-2: "ready" when the node (read uncached) is Ready again, "changed" when its Ready
   * condition changed after `lostSince` (ms); else tainted if asked.
   */
  checkNode(
    node: string,
    taintOutOfService: boolean,
    lostSince?: number,
  ): Promise<"ready" | "changed" | "lost">;
  /** Step 3: grace period 0, uid precondition; false when the pod was already gone. */
  forceDeletePod(namespace: string, name: string, uid: string): Promise<boolean>;
  /** Step 4: deletes the attachments to `node` of the claims' volumes; returns their names. */
  deleteAttachments(namespace: string, node: string, claimNames: readonly string[]): Promise<string[]>;
}

export function nodeIsReady(node: V1Node | undefined): boolean {
  return node?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
}

/** The node's Ready condition changed after `lostSince` (ms): a loss newer than the plan's. */
export function readyChangedSince(node: V1Node | undefined, lostSince: number | undefined): boolean {
  if (lostSince === undefined || node === undefined) return false;
  const at = node.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime;
  if (at === undefined) return false;
  return new Date(at).getTime() > lostSince;
}

export function createNodeFencing(kubeConfig: KubeConfig, writes: WriteCounter): NodeFencing {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);

  const readNode = async (name: string): Promise<V1Node | undefined> => {
    try {
      return await core.readNode({ name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const taint = async (node: V1Node): Promise<void> => {
    const taints = node.spec?.taints ?? [];
    if (taints.some((t) => t.key === OutOfServiceTaint.key && t.effect === OutOfServiceTaint.effect)) return;
    writes.count("patch", "nodes");
    await core.patchNode(
      {
        name: node.metadata?.name ?? "",
        body: [
          { op: "test", path: "/metadata/resourceVersion", value: node.metadata?.resourceVersion },
          {
            op: "add",
            path: "/spec/taints",
            value: [...taints, { ...OutOfServiceTaint, timeAdded: new Date() }],
          },
        ],
      },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
  };

  const volumesOf = async (namespace: string, claims: readonly string[]): Promise<Set<string>> => {
    const volumes = new Set<string>();
    for (const name of claims) {
      try {
        const claim = await core.readNamespacedPersistentVolumeClaim({ name, namespace });
        if (claim.spec?.volumeName) volumes.add(claim.spec.volumeName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return volumes;
  };

  return {
    async checkNode(name, taintOutOfService, lostSince) {
      const node = await readNode(name);
      if (nodeIsReady(node)) return "ready";
      if (readyChangedSince(node, lostSince)) return "changed";
      if (taintOutOfService && node !== undefined) await taint(node);
      return "lost";
    },
    async forceDeletePod(namespace, name, uid) {
      writes.count("delete", "pods");
      try {
        await core.deleteNamespacedPod({
          name,
          namespace,
          gracePeriodSeconds: 0,
          body: { gracePeriodSeconds: 0, preconditions: { uid } },
        });
        return true;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        return false;
      }
    },
    async deleteAttachments(namespace, node, claimNames) {
      const volumes = await volumesOf(namespace, claimNames);
      const deleted: string[] = [];
      if (volumes.size === 0) return deleted;
      const attachments = await storage.listVolumeAttachment();
      for (const va of attachments.items) {
        const pv = va.spec.source.persistentVolumeName;
        if (va.spec.nodeName !== node || pv === undefined || !volumes.has(pv)) continue;
        const name = va.metadata?.name ?? "";
        writes.count("delete", "volumeattachments");
        try {
          await storage.deleteVolumeAttachment({
            name,
            body: { preconditions: { uid: va.metadata?.uid ?? "" } },
          });
          deleted.push(name);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      return deleted;
    },
  };
}
