/**
 * The sync's answer to a PetSet it cannot parse (sync.ts), or whose state a newer controller
 * wrote (state-format.ts): an Event and a condition that name the fields or objects. Writes
 * only the PetSet's status and an Event.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import {
  API_VERSION,
  ConditionTypes,
  PETSET_KIND,
  PetSetStatusSchema,
  ProgressingReasons,
} from "../api/index.js";
import { isConflict, isNotFound } from "./api-errors.js";
import { sameStatus, withCondition } from "./status-compare.js";
import type { SyncContext } from "./sync.js";

/** Condition messages stay readable in `kubectl describe` (kube allows 32 KiB). */
const MAX_CONDITION_MESSAGE = 4096;

/**
 * A PetSet the API server accepted but petset cannot read (the CRD schema is looser than the
 * API types): a Warning Event and the Progressing=False/InvalidSpec condition, both naming the
 * fields, so `kubectl describe` and `kubectl wait` show it (fuzzed input: only the Event was
 * written, the status said nothing).
 */
export async function reportRefusal(
  ctx: SyncContext,
  raw: KubernetesObject,
  message: string,
  reason: string = ProgressingReasons.invalidSpec,
): Promise<void> {
  const ns = raw.metadata?.namespace ?? "default";
  const name = raw.metadata?.name ?? "";
  await ctx.events.record(
    { apiVersion: API_VERSION, kind: PETSET_KIND, namespace: ns, name, uid: raw.metadata?.uid },
    { type: "Warning", reason, message },
  );
  const what = reason === ProgressingReasons.invalidSpec ? "invalid PetSet" : "not acting on this PetSet";
  ctx.logger.warn({ petSet: `${ns}/${name}`, reason, message }, what);
  const current = PetSetStatusSchema.safeParse((raw as { status?: unknown }).status ?? {});
  const base = current.success ? current.data : PetSetStatusSchema.parse({});
  const status = withCondition(
    base,
    {
      type: ConditionTypes.progressing,
      status: "False",
      reason,
      message: message.slice(0, MAX_CONDITION_MESSAGE),
    },
    ctx.clock.now(),
    raw.metadata?.generation,
  );
  if (current.success && sameStatus(current.data, status)) return;
  try {
    await ctx.status.update(ns, name, raw.metadata?.resourceVersion ?? "", status);
  } catch (err) {
    // A newer PetSet is in the cache already or soon: its event re-runs the sync.
    if (!isConflict(err) && !isNotFound(err)) throw err;
  }
}
