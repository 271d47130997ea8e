/**
 * What a hook handler gets and returns. A handler runs one attempt of one hook; it never
 * writes the hook's record (the runner does, record-writer.ts) and it stops when `signal`
 * aborts (cancelled, timed out, or this replica lost its Lease). Every request with a side
 * effect is fenced: API writes by the fenced `kubeConfig`, pods/exec and webhook POSTs by
 * `fence` (checked before connecting and again as the request's bytes go out). Transient
 * failures (transient.ts) are retried until `signal` aborts: a handler returns
 * `{ok: false}` only for a definite failure of the hook itself.
 */
import type { KubeConfig, V1Pod } from "@kubernetes/client-node";
import type { HookContext, HookRecord, HookSpec, PetSet, PetSetVersion } from "../../api/index.js";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import type { ControllerCaches } from "../informers.js";
import type { LeaseGuard } from "../lease-guard.js";

export interface HookRun {
  record: HookRecord;
  spec: HookSpec;
  petSet: PetSet;
  /** The version whose template a Job runs (preRollout/postRollout/postUpdate: the target). */
  version: PetSetVersion | undefined;
  context: HookContext;
  /** The pet's pod as cached (per-pet hooks), when it still exists with the record's uid. */
  pod: V1Pod | undefined;
}

export interface HookOutcome {
  ok: boolean;
  message: string;
}

export interface HandlerDeps {
  /** Fenced: every write stops when the Lease is lost. */
  kubeConfig: KubeConfig;
  caches: ControllerCaches;
  clock: Clock;
  logger: Logger;
  /** The Lease fence of the fenced `kubeConfig`, for requests it does not make. None: unfenced. */
  fence?: LeaseGuard | undefined;
}

/** The fence's check (throws LeaseLostError while this replica may not write). */
export function fenceCheck(deps: HandlerDeps): () => void {
  const fence = deps.fence;
  return fence === undefined ? () => {} : () => fence.check();
}

export type HookHandler = (run: HookRun, deps: HandlerDeps, signal: AbortSignal) => Promise<HookOutcome>;

/** The last `max` characters of a handler's output, for a record's message. */
export function tail(text: string, max = 512): string {
  const t = text.trim();
  return t.length <= max ? t : `…${t.slice(t.length - max)}`;
}
