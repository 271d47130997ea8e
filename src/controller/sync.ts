/**
 * One sync of one PetSet: read the caches, record a version if the content changed, ask the
 * planner what to do, execute, write status, then collect history (also after a failure).
 * Nothing is decided while the caches have not shown this controller's own earlier writes
 * (expectations.ts): the sync waits, and the informer event that shows them wakes it.
 * Errors are never swallowed: an error the API returns for what the spec asks (422/403)
 * becomes a condition and an Event naming the field; anything else is returned to the queue,
 * which retries with backoff.
 */
import {
  API_VERSION,
  ConditionTypes,
  Labels,
  PETSET_KIND,
  type PetSet,
  type PetSetStatus,
  ProgressingReasons,
  versionName,
} from "../api/index.js";
import { UNSUPPORTED_STATE_FORMAT } from "../api/state-format.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { VersionHistory } from "../versions/history.js";
import { planVersionSync } from "../versions/plan-sync.js";
import {
  canAdopt,
  hiddenPodConflict,
  type OwnershipOutcome,
  petSetTarget,
  reconcileOwnership,
  withConflicts,
} from "./adoption.js";
import {
  describeApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  statusCode,
} from "./api-errors.js";
import type { ClaimControl } from "./claim-control.js";
import type { EventRecorder, EventTarget, RecordedEvent } from "./event-recorder.js";
import { executeSteps, StaleViewError, StepError } from "./executor.js";
import {
  type Expect,
  type Expectation,
  type ExpectationStore,
  expectBefore,
  type ResendPolicy,
} from "./expectations.js";
import type { HookRunner } from "./hooks/runner.js";
import type { ControllerCaches } from "./informers.js";
import type { ControllerMetrics } from "./metrics.js";
import type { NodeFencing } from "./node-fencing.js";
import type { NodeWatch } from "./node-watch.js";
import { cachedPodView, cachedVersions, parsePetSet } from "./parsed-cache.js";
import {
  type PetSetReader,
  type PetSetWriter,
  type StatusUpdater,
  type VersionControl,
  VersionStatusSubresourceMissing,
} from "./petset-client.js";
import { claimViewFromV1, planRollout } from "./planner/index.js";
import type { PodControl } from "./pod-control.js";
import { checkStateFormats } from "./state-format.js";
import type { StatusWriteLimiter } from "./status-coalescing.js";
import { withCondition } from "./status-compare.js";
import type { StorageClassWatch } from "./storage-class-watch.js";
import { storedStatus } from "./stored-status.js";
import { awaitExpectations } from "./sync-expectations.js";
import { collectHistory } from "./sync-history.js";
import { reportRefusal } from "./sync-refusal.js";
import { writeStatus } from "./sync-status-write.js";

export interface SyncContext {
  caches: ControllerCaches;
  clock: Clock;
  logger: Logger;
  pods: PodControl;
  claims: ClaimControl;
  versions: VersionControl;
  status: StatusUpdater;
  petSets: PetSetWriter & PetSetReader;
  events: EventRecorder;
  metrics: ControllerMetrics;
  /** What earlier syncs wrote and the caches have not shown yet, per PetSet key. */
  expectations: ExpectationStore;
  /** Aborted when this replica loses its Lease: long loops (history GC) stop. */
  signal?: AbortSignal;
  /** Runs the hooks the plans start (hooks/runner.ts); none in tests of the sync alone. */
  hooks?: HookRunner;
  /** Coalesces progress-only status writes (status-coalescing.ts); none: every change at once. */
  statusWrites?: StatusWriteLimiter;
  /** When this controller began driving (planner/takeover.ts); none: all time counts. */
  drivingSince?: number;
  /** The nodes for lost-node decisions (node-watch.ts); none or undefined: nothing is judged. */
  nodes?: NodeWatch;
  /** Moves a fenced pet off its lost node (node-fencing.ts). */
  nodeFencing?: NodeFencing;
  /** StorageClasses for claim growth (storage-class-watch.ts); none or undefined: none refused for its class. */
  storageClasses?: StorageClassWatch;
  /** How a create or delete whose answer was lost is resent (expectations.ts); default RESEND_LOST_ANSWER. */
  resend?: ResendPolicy;
}

export interface SyncResult {
  /** Sync again after this long even without an event. */
  requeueAfterMs?: number;
  /** Nothing was planned: the caches have not shown this controller's own writes yet. */
  waiting?: boolean;
}

/** How soon to look again when the cache was behind the API (409, AlreadyExists). */
const STALE_CACHE_REQUEUE_MS = 250;
/** How often to look again at a pet name held by a pod the cache cannot show (no event wakes us). */
const HIDDEN_POD_REQUEUE_MS = 10_000;
/** How soon to retry a spec the API refused; a spec change wakes the sync earlier. */
const INVALID_SPEC_REQUEUE_MS = 30_000;

export async function syncPetSet(ctx: SyncContext, key: string): Promise<SyncResult> {
  const [namespace = "", name = ""] = key.split("/");
  const raw = ctx.caches.petSets.get(name, namespace);
  if (!raw) {
    ctx.hooks?.forget(key);
    ctx.statusWrites?.forget(key);
    ctx.metrics.petSets.forget(namespace, name);
    return {};
  }
  const parsed = parsePetSet(raw);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    await reportRefusal(ctx, raw, `invalid spec: ${fields}`);
    return { requeueAfterMs: INVALID_SPEC_REQUEUE_MS };
  }
  const petSet = parsed.data;
  // State a newer controller wrote: no plan, no hook run, no history GC (state-format.ts).
  const format = checkStateFormats({
    versions: ctx.caches.versions.ofPetSet(namespace, name),
    pods: ctx.caches.pods.ofPetSet(namespace, name),
  });
  if (!format.ok) {
    ctx.hooks?.forget(key);
    await reportRefusal(ctx, raw, format.message, UNSUPPORTED_STATE_FORMAT);
    return { requeueAfterMs: INVALID_SPEC_REQUEUE_MS };
  }
  const waiting = awaitExpectations(ctx, key, namespace);
  if (waiting !== undefined) return waiting;
  const expect = (e: Expectation) => ctx.expectations.expect(key, e, ctx.clock.now());
  try {
    return await syncParsed(ctx, petSet, expect);
  } finally {
    // History GC reads the same caches: only once they show this sync's writes, too.
    if (awaitExpectations(ctx, key, namespace) === undefined)
      await collectHistory(ctx, petSet, (ns, ps) => cachedVersions(ctx.caches, ctx.logger, ns, ps));
  }
}

async function syncParsed(ctx: SyncContext, petSet: PetSet, expect: Expect): Promise<SyncResult> {
  const namespace = petSet.metadata.namespace ?? "default";
  const name = petSet.metadata.name ?? "";
  let versions = cachedVersions(ctx.caches, ctx.logger, namespace, name);

  const versionPlan = planVersionSync(petSet, versions);
  if (versionPlan.action === "adopt") {
    // As for pods: only a PetSet that is live and not being deleted adopts (uncached read).
    if (!(await canAdopt(ctx, petSet))) return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    for (const vName of versionPlan.names) {
      const cached = ctx.caches.versions.get(vName, namespace);
      const rv = cached?.metadata?.resourceVersion;
      if (!rv) continue;
      const uid = cached?.metadata?.uid ?? "";
      const changed = () =>
        expect({ kind: "changed", resource: "petsetversions", name: vName, uid, from: rv });
      try {
        await ctx.versions.adopt(namespace, vName, rv, {
          apiVersion: API_VERSION,
          kind: PETSET_KIND,
          name,
          uid: petSet.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        });
      } catch (err) {
        // Expected only once the API answered (see writeStatus).
        if (isConflict(err) || isInvalid(err)) changed();
        throw err;
      }
      changed();
    }
    return { requeueAfterMs: 0 };
  }
  if (versionPlan.action === "create") {
    const v = versionPlan.version;
    const vName = v.metadata.name ?? versionName(name, v.spec.version);
    // Intent first (expectations.ts): a create whose answer is lost may have landed.
    try {
      await expectBefore(
        expect,
        { kind: "present", resource: "petsetversions", name: vName },
        () => ctx.versions.create(v),
        ctx.resend,
      );
      ctx.logger.debug({ petSet: `${namespace}/${name}`, version: vName }, "version recorded");
    } catch (err) {
      if (isAlreadyExists(err)) return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
      throw err;
    }
    const cause = v.spec.changeCause ? `: ${v.spec.changeCause}` : "";
    const rollback = v.spec.rollbackOf ? ` (rollback of version ${v.spec.rollbackOf})` : "";
    await record(ctx, petSet, {
      type: "Normal",
      reason: "VersionCreated",
      message: `Created version ${versionName(name, v.spec.version)}${rollback}${cause}`,
    });
    versions = [...versions, v];
  }
  // The cache lists every version in the namespace: the rollout only ever sees this PetSet's.
  versions = [...VersionHistory.of(petSet, versions).owned];

  // Adoption and release (planner/ownership.ts): the planner sees only the pods it controls.
  let ownership: OwnershipOutcome;
  try {
    ownership = await reconcileOwnership({ ...ctx, expect }, petSet, ctx.caches.pods, ctx.caches.claims);
  } catch (err) {
    // Changed since the cache showed it (409, 422 for another uid): decide again on a fresher view.
    if (isConflict(err) || isInvalid(err)) return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    throw err;
  }
  if (ownership.changed || ownership.refused) return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
  const pods = ownership.ownedPods.map(cachedPodView);
  const claims = ctx.caches.claims
    .ofPetSet(namespace, name)
    .map(claimViewFromV1)
    .map((c) => (ownership.foreignClaims.has(c.name) ? { ...c, foreign: true } : c));
  const now = ctx.clock.now();
  const nodes = ctx.nodes?.views();
  const storageClasses = ctx.storageClasses?.views();
  const plan = planRollout({
    petSet,
    versions,
    pods,
    claims,
    now,
    blockedOrdinals: ownership.blockedOrdinals,
    ...(ctx.drivingSince !== undefined ? { drivingSince: ctx.drivingSince } : {}),
    ...(nodes !== undefined ? { nodes } : {}),
    ...(storageClasses !== undefined ? { storageClasses } : {}),
  });
  ctx.metrics.petSets.setLostPets(namespace, name, plan.lostPets?.length ?? 0);
  // Hook runs: those Running as cached that this plan still asks for (its status.hooks) run,
  // the others stop; a superseded version's hook never starts (hooks/runner.ts).
  ctx.hooks?.reconcile(petSet, versions, plan.status.hooks ?? []);
  ctx.metrics.petSets.setPods(
    namespace,
    name,
    versions.length,
    pods.map((p) => p.labels[Labels.version] ?? "unknown"),
  );

  let status: PetSetStatus = {
    ...plan.status,
    observedGeneration: petSet.metadata.generation ?? plan.status.observedGeneration,
    ready: `${plan.status.readyReplicas}/${petSet.spec.replicas}`,
  };
  const conflicts = [...ownership.conflicts];
  let requeueAfterMs = plan.requeueAfterMs;
  // A rollbackTo step writes the PetSet: the status write must follow that write, or its
  // precondition fails and the RolledBack condition is lost.
  let written = petSet;
  // An unexpected error (5xx, a reset) goes back to the queue, but only after the status is
  // written, as for a stale view: it tells what the caches show (upstream's
  // TestStatefulSetStatusUpdate, "sync error"; test/upstream/controller-table).
  let failure: unknown;
  try {
    const result = await executeSteps({ ...ctx, expect }, petSet, versions, plan.steps);
    if (result.petSetResourceVersion !== undefined) {
      written = {
        ...petSet,
        metadata: { ...petSet.metadata, resourceVersion: result.petSetResourceVersion },
      };
    }
  } catch (err) {
    const cause = err instanceof StepError ? err.cause : err;
    const code = statusCode(cause);
    // The status is derived from the versions' facts: never write one whose facts failed to land.
    if (err instanceof StepError && err.step.kind === "recordVersionStatus" && isConflict(cause))
      return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    // A pet's name taken by a pod the cache cannot show (no petset.dev/petset label).
    const hidden =
      err instanceof StepError && isAlreadyExists(cause)
        ? await hiddenPodConflict(ctx, petSet, err.step)
        : undefined;
    if (hidden !== undefined && err instanceof StepError && err.step.kind === "createPod") {
      // The cache only holds labelled pods: it will never show this one (nor one deleted since
      // the create collided with it), so expect nothing of it.
      const podName = err.step.pod.metadata?.name;
      ctx.expectations.drop(
        `${namespace}/${name}`,
        (e) => e.kind === "present" && e.resource === "pods" && e.name === podName,
      );
      if (hidden === "gone") {
        requeueAfterMs = STALE_CACHE_REQUEUE_MS;
      } else {
        conflicts.push(hidden);
        requeueAfterMs = Math.min(requeueAfterMs ?? HIDDEN_POD_REQUEUE_MS, HIDDEN_POD_REQUEUE_MS);
      }
    } else if (
      isConflict(cause) ||
      isAlreadyExists(cause) ||
      isNotFound(cause) ||
      cause instanceof StaleViewError
    ) {
      requeueAfterMs = STALE_CACHE_REQUEUE_MS;
    } else if (
      code === 422 ||
      code === 403 ||
      code === 400 ||
      cause instanceof VersionStatusSubresourceMissing
    ) {
      // The API refuses what the spec asks for (or an old CRD cannot hold the version facts):
      // tell the user where, keep other PetSets going.
      const message = `${err instanceof Error ? err.message.split(":")[0] : "step"}: ${describeApiError(cause)}`;
      status = withCondition(
        status,
        {
          type: ConditionTypes.progressing,
          status: "False",
          reason: ProgressingReasons.invalidSpec,
          message,
        },
        now,
        petSet.metadata.generation,
      );
      await record(ctx, petSet, { type: "Warning", reason: "FailedStep", message });
      requeueAfterMs = INVALID_SPEC_REQUEUE_MS;
    } else {
      failure = err;
    }
  }
  const withConflict = withConflicts(
    status,
    storedStatus(petSet),
    conflicts,
    now,
    petSet.metadata.generation,
  );
  status = withConflict.status;
  for (const c of withConflict.fresh) {
    await record(ctx, petSet, { type: "Warning", reason: c.reason, message: c.message });
  }
  for (const e of plan.events) {
    const target = e.object === "petset" ? petSetTarget(petSet) : podTarget(namespace, e.object);
    await ctx.events.record(target, { type: e.type, reason: e.reason, message: e.message });
  }
  ctx.metrics.petSets.reportConditions(namespace, name, status.conditions);
  let deferredMs: number | undefined;
  try {
    deferredMs = await writeStatus(ctx, written, status, expect);
  } catch (statusErr) {
    // The sync's own error says more than the status write's (upstream returns it, too).
    if (failure === undefined) throw statusErr;
  }
  if (failure !== undefined) throw failure;
  // A progress-only status held back is written by the sync this requeue runs.
  if (deferredMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? deferredMs, deferredMs);
  return requeueAfterMs === undefined ? {} : { requeueAfterMs };
}

function podTarget(namespace: string, name: string): EventTarget {
  return { apiVersion: "v1", kind: "Pod", namespace, name };
}

function record(ctx: SyncContext, petSet: PetSet, event: RecordedEvent): Promise<void> {
  return ctx.events.record(petSetTarget(petSet), event);
}
