/**
 * Writes a run's outcome into its record on the holder version's status: read the version
 * (uncached), change the record only if it is still the same run (same id, Running, same
 * attempt), merge-patch `status.hooks` with a resourceVersion precondition, retry on 409.
 * A record that moved on meanwhile (cancelled, timed out by the planner, retried) is left
 * alone: the planner's decision stands. So is a version whose status a newer controller wrote
 * (state-format.ts); the patch stamps the format it writes.
 */
import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { GROUP, type HookRecord, PetSetVersionSchema, VERSION, VERSION_PLURAL } from "../../api/index.js";
import { STATE_FORMAT } from "../../api/state-format.js";
import { isConflict, isNotFound } from "../api-errors.js";
import { checkStateFormats } from "../state-format.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const ATTEMPTS = 5;

export type RecordWrite = "written" | "outdated";

export async function writeHookOutcome(
  kubeConfig: KubeConfig,
  target: { namespace: string; versionName: string; id: string; attempts: number },
  outcome: { ok: boolean; message: string; finishedAt: string },
): Promise<RecordWrite> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const ref = {
    group: GROUP,
    version: VERSION,
    plural: VERSION_PLURAL,
    namespace: target.namespace,
    name: target.versionName,
  };
  for (let i = 0; ; i++) {
    let version: ReturnType<typeof PetSetVersionSchema.parse>;
    try {
      const raw = (await api.getNamespacedCustomObject(ref)) as { status?: unknown };
      if (!checkStateFormats({ versions: [raw], pods: [] }).ok) return "outdated";
      version = PetSetVersionSchema.parse(raw);
    } catch (err) {
      if (isNotFound(err)) return "outdated";
      throw err;
    }
    const hooks = version.status?.hooks ?? [];
    const record = hooks.find((r) => r.id === target.id);
    if (record === undefined || record.phase !== "Running" || record.attempts !== target.attempts)
      return "outdated";
    const done: HookRecord = {
      ...record,
      phase: outcome.ok ? "Succeeded" : "Failed",
      finishedAt: outcome.finishedAt,
      message: outcome.message,
      ...(outcome.ok ? {} : { failures: record.failures + 1 }),
    };
    try {
      await api.patchNamespacedCustomObjectStatus(
        {
          ...ref,
          body: {
            metadata: { resourceVersion: version.metadata.resourceVersion },
            status: {
              hooks: hooks.map((r) => (r.id === target.id ? done : r)),
              formatVersion: STATE_FORMAT,
            },
          },
        },
        merge,
      );
      return "written";
    } catch (err) {
      if (!isConflict(err) || i + 1 >= ATTEMPTS) throw err;
    }
  }
}
