/**
 * History GC after a sync (src/gc): collect this PetSet's versions beyond revisionHistoryLimit
 * from the same caches the sync read. Failures are logged, never fail the sync.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import type { PetSet, PetSetVersion } from "../api/index.js";
import { runVersionGc } from "../gc/runner.js";
import type { SyncContext } from "./sync.js";

export async function collectHistory(
  ctx: SyncContext,
  petSet: PetSet,
  listVersions: (namespace: string, petSet: string) => PetSetVersion[],
): Promise<void> {
  try {
    const result = await runVersionGc(
      {
        listVersions,
        // Pods another controller holds run none of this PetSet's versions (orphans may).
        listPods: (ns, ps) => ctx.caches.pods.ofPetSet(ns, ps).filter((p) => !controlledElsewhere(petSet, p)),
        deleteVersion: (ns, vName, uid, rv) => ctx.versions.delete(ns, vName, uid, rv),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
      petSet,
    );
    if (result.deleted.length > 0) {
      ctx.logger.info({ petSet: petSet.metadata.name, deleted: result.deleted }, "collected old versions");
    }
    if (result.blocked)
      ctx.logger.warn({ petSet: petSet.metadata.name, why: result.blocked }, "history GC blocked");
  } catch (err) {
    ctx.logger.warn(
      { petSet: petSet.metadata.name, err: err instanceof Error ? err.message : String(err) },
      "history GC failed",
    );
  }
}

function controlledElsewhere(petSet: PetSet, obj: KubernetesObject): boolean {
  const controller = obj.metadata?.ownerReferences?.find((r) => r.controller);
  return controller !== undefined && controller.uid !== petSet.metadata.uid;
}
