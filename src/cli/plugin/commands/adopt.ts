import { ConditionTypes, type PetSet, type PetSetVersion, versionName } from "../../../api/index.js";
import { petOrdinal } from "../../../controller/planner/ownership.js";
import type { Clock } from "../../../util/clock.js";
import { type CommandContext, objectRef } from "../context.js";
import { formatDuration } from "../duration.js";
import { PluginError } from "../errors.js";
import { formatTable } from "../format-table.js";
import {
  AdoptRefusedError,
  type AdoptSnapshot,
  adoptedFromValue,
  adoptedPetSetManifest,
  comparePods,
  MigrationAnnotations,
  parseSnapshot,
  petPods,
  planClaimLabels,
  planPodLabels,
  preflight,
  snapshotOf,
} from "../migrate/adopt-plan.js";
import { planImport, versionsToCreate } from "../migrate/import-plan.js";
import { type Claim, controllerRef, type Pod, statefulSetRef } from "../migrate/objects.js";
import type { PetSetApi } from "../petset-api.js";
import { waitFor } from "./migration-wait.js";

/** Steps after which a hidden `--stop-after` ends the run: how tests interrupt an adoption. */
export const ADOPT_STEPS = ["versions", "petset", "labels", "orphan"] as const;
export type AdoptStep = (typeof ADOPT_STEPS)[number];

export interface AdoptOptions {
  readonly dryRun: boolean;
  readonly timeoutMs: number;
  readonly stopAfter?: AdoptStep;
  /** Between two reads while waiting for the garbage collector and the controller. */
  readonly pollMs?: number;
}

/**
 * `kubectl petset adopt statefulset/NAME [--dry-run]`: hands a running StatefulSet's pods
 * to a PetSet of the same name without restarting any. Each step discovers its state from
 * the cluster and is idempotent, so running the command again resumes an interrupted run:
 *
 * 1. preflight (adopt-plan.ts), 2. import the ControllerRevisions as orphaned versions,
 * 3. create the PetSet (annotated with where it came from and a snapshot of the pods),
 * 4. label pods and claims, 5. orphan-delete the StatefulSet and wait for the garbage
 * collector, then for the controller's adoption, 6. compare every pod with the snapshot.
 */
export async function adoptCommand(
  ctx: CommandContext,
  target: string,
  options: AdoptOptions,
): Promise<number> {
  const { api, io } = ctx;
  const name = statefulSetName(target);
  const sts = await api.getStatefulSet(name);
  const existingPetSet = await findPetSet(ctx, name);
  if (sts === undefined && existingPetSet === undefined)
    throw new PluginError("NotFound", `statefulset "${name}" not found in namespace "${api.namespace}"`);
  if (
    existingPetSet !== undefined &&
    existingPetSet.metadata.annotations?.[MigrationAnnotations.adoptedFrom] !== adoptedFromValue(name)
  )
    throw new AdoptRefusedError(
      `petset "${name}" already exists and was not made by adopting statefulset "${name}" (no annotation ${MigrationAnnotations.adoptedFrom}: ${adoptedFromValue(name)})`,
    );
  const stop = (step: AdoptStep): boolean => {
    if (options.stopAfter !== step) return false;
    io.stderr.write(`stopped after step "${step}" (--stop-after); run the command again to resume\n`);
    return true;
  };

  let petSet = existingPetSet;
  if (sts !== undefined && sts.metadata.deletionTimestamp === undefined) {
    const [revisions, pods, claims, existingVersions] = await Promise.all([
      api.listControllerRevisions(),
      api.listPods(),
      api.listClaims(),
      api.listVersions(name),
    ]);
    const manifest = preflight({ statefulSet: sts, revisions, pods, claims, petSet });
    const versions = planImport(sts, revisions, manifest);
    const toCreate = versionsToCreate(versions, existingVersions);
    const relabels = planPodLabels(name, versions, pods);
    const claimTemplates = versions.at(-1)?.spec.volumeClaimTemplates.map((t) => t.metadata.name) ?? [];
    const ordinals = [...petPods(name, pods).keys()];
    const claimRelabels = planClaimLabels(name, claimTemplates, ordinals, claims);
    if (options.dryRun) {
      printPlan(ctx, name, versions, toCreate, relabels, petSet !== undefined);
      return 0;
    }
    if (petSet === undefined) io.stdout.write(`${statefulSetRef(name)}: preflight passed\n`);
    else io.stdout.write(`${statefulSetRef(name)}: resuming the adoption into petset "${name}"\n`);

    for (const version of toCreate) {
      const created = await api.createVersion(version);
      const source = version.metadata.annotations?.[MigrationAnnotations.importedFrom];
      io.stdout.write(
        `petsetversion.petset.dev/${version.metadata.name} ${created ? "created" : "exists"} (from controllerrevision ${source})\n`,
      );
    }
    if (stop("versions")) return 0;

    if (petSet === undefined) {
      const snapshot = snapshotOf(sts, pods);
      petSet = await api.createPetSet(adoptedPetSetManifest(manifest, name, api.namespace, snapshot));
      io.stdout.write(`petset.petset.dev/${name} created\n`);
    }
    if (stop("petset")) return 0;

    for (const pod of relabels) {
      if (Object.keys(pod.labels).length + Object.keys(pod.annotations).length === 0) continue;
      await api.patchPodMetadata(
        pod.name,
        {
          labels: pod.labels,
          ...(Object.keys(pod.annotations).length > 0 ? { annotations: pod.annotations } : {}),
        },
        pod.resourceVersion,
      );
      io.stdout.write(`pod/${pod.name} labelled (version ${pod.version})\n`);
    }
    for (const claim of claimRelabels) {
      const done = await labelClaim(api, name, claimTemplates, ordinals, claim);
      io.stdout.write(`persistentvolumeclaim/${claim.name} ${done}\n`);
    }
    if (stop("labels")) return 0;

    await api.deleteStatefulSetOrphaning(name, sts.metadata.uid ?? "");
    io.stdout.write(`${statefulSetRef(name)} deleted (propagationPolicy: Orphan)\n`);
    if (stop("orphan")) return 0;
  } else if (options.dryRun) {
    io.stdout.write(
      `${statefulSetRef(name)} is already deleted: adopt would wait for petset "${name}" to adopt its pods\n`,
    );
    return 0;
  }
  if (petSet === undefined) throw new PluginError("NotFound", `petset "${name}" not found`);
  const snapshot = parseSnapshot(petSet);
  if (snapshot === undefined)
    throw new AdoptRefusedError(
      `petset "${name}" has no readable annotation ${MigrationAnnotations.snapshot}`,
    );
  return finish(ctx, name, snapshot, options);
}

/** Step 5 (waits) and 6 (verification). */
async function finish(
  ctx: CommandContext,
  name: string,
  snapshot: AdoptSnapshot,
  options: AdoptOptions,
): Promise<number> {
  const { api, io } = ctx;
  const deadline = ctx.clock.now() + options.timeoutMs;
  const timing = { deadline, pollMs: options.pollMs ?? 1000 };
  const stsUid = snapshot.statefulSetUid;
  const heldByStatefulSet = (o: Pod | Claim) =>
    (o.metadata.ownerReferences ?? []).some((r) => r.uid === stsUid);
  const snapshotNames = new Set(Object.keys(snapshot.pods));
  const resume = `run \`kubectl petset adopt statefulset/${name}\` again to resume`;
  await waitFor(
    ctx,
    {
      what: `the garbage collector to orphan the pods and claims of ${statefulSetRef(name)}`,
      stalled: (stillFor) =>
        `the garbage collector has not orphaned the pods and claims of ${statefulSetRef(name)} for ${stillFor}: is kube-controller-manager running? Once it is, ${resume}`,
      look: async () => {
        const sts = await api.getStatefulSet(name);
        const present = sts?.metadata.uid === stsUid;
        const [pods, claims] = await Promise.all([api.listPods(), api.listClaims()]);
        const held = [...pods, ...claims].filter(heldByStatefulSet).map((o) => o.metadata.name ?? "");
        return {
          done: !present && held.length === 0 ? true : undefined,
          progress: present
            ? `${statefulSetRef(name)} is still there (its deletion is pending)`
            : `${held.length} pods and claims still held: ${held.join(", ")}`,
          seen: JSON.stringify({ present, rv: present ? sts?.metadata.resourceVersion : undefined, held }),
        };
      },
    },
    timing,
  );
  io.stdout.write(`${statefulSetRef(name)} gone; its pods and claims have no controller\n`);

  const petSet = await waitFor(
    ctx,
    {
      what: `petset "${name}" to adopt its pods and become Available`,
      stalled: (stillFor) =>
        `no petset controller has updated ${objectRef(name)}'s status for ${stillFor} (awaited: it adopts the pods and becomes Available): is the petset controller running (\`petset controller\`, or \`make run\`)? Once it is, ${resume}`,
      look: async () => {
        const current = await api.getPetSet(name);
        const pods = (await api.listPods()).filter((p) => snapshotNames.has(p.metadata.name ?? ""));
        const ownedByPetSet = (o: Pod | Claim) => controllerRef(o.metadata)?.uid === current.metadata.uid;
        // Claims are the PetSet's only with whenDeleted: Delete (as StatefulSets own them).
        const claimsOwned =
          current.spec.persistentVolumeClaimRetentionPolicy.whenDeleted !== "Delete" ||
          (await api.listClaims()).filter((c) => petClaim(name, current, c)).every(ownedByPetSet);
        const ownedPods = pods.filter(ownedByPetSet).length;
        const available = current.status?.conditions.some(
          (c) => c.type === ConditionTypes.available && c.status === "True",
        );
        const observed = (current.status?.observedGeneration ?? 0) >= (current.metadata.generation ?? 0);
        const done = ownedPods === pods.length && claimsOwned && available && observed ? current : undefined;
        return {
          done,
          progress: `${ownedPods} of ${pods.length} pods owned, ${available ? "Available" : "not Available yet"}`,
          seen: JSON.stringify({
            status: current.status ?? null,
            owners: pods.map((p) => controllerRef(p.metadata)?.uid ?? ""),
          }),
        };
      },
    },
    timing,
  );
  io.stdout.write(`petset.petset.dev/${name} adopted ${snapshotNames.size} pods and is Available\n`);

  const comparison = comparePods(snapshot, await api.listPods());
  const rows = comparison.map((c) => [
    c.name,
    c.before.uid,
    c.after === undefined ? "<gone>" : c.after.uid === c.before.uid ? "same" : c.after.uid,
    `${c.before.restarts} -> ${c.after?.restarts ?? "?"}`,
    c.unchanged ? "unchanged" : "CHANGED",
  ]);
  io.stdout.write(formatTable(["POD", "UID", "UID-NOW", "RESTARTS", "RESULT"], rows));
  const changed = comparison.filter((c) => !c.unchanged);
  if (changed.length > 0) {
    io.stderr.write(
      `error: ${changed.length} pod(s) of petset "${name}" were replaced or restarted during adoption: ${changed.map((c) => c.name).join(", ")}\n`,
    );
    return 1;
  }
  const update = petSet.status?.updateVersion;
  io.stdout.write(
    `petset.petset.dev/${name} adopted from ${statefulSetRef(name)}: no pod restarted${update !== undefined ? `; update version ${update}` : ""}\n`,
  );
  return 0;
}

/** A claim `<template>-<set>-<ordinal>` of one of the PetSet's claim templates. */
function petClaim(name: string, petSet: PetSet, claim: Claim): boolean {
  const claimName = claim.metadata.name ?? "";
  return petSet.spec.volumeClaimTemplates.some(
    (t) =>
      petOrdinal(name, claimName.slice(t.metadata.name.length + 1)) !== undefined &&
      claimName.startsWith(`${t.metadata.name}-`),
  );
}

function printPlan(
  ctx: CommandContext,
  name: string,
  versions: readonly PetSetVersion[],
  toCreate: readonly PetSetVersion[],
  relabels: ReturnType<typeof planPodLabels>,
  resuming: boolean,
): void {
  const { io } = ctx;
  const creating = new Set(toCreate.map((v) => v.metadata.name));
  io.stdout.write(`${statefulSetRef(name)}: preflight passed (dry run: nothing changed)\n`);
  io.stdout.write(
    `${resuming ? "petset exists (resuming)" : `would create petset.petset.dev/${name}`}\n\nversions to import:\n`,
  );
  io.stdout.write(
    formatTable(
      ["VERSION", "FROM", "HASH", "STATE", "CHANGE-CAUSE"],
      versions.map((v) => [
        versionName(name, v.spec.version),
        v.metadata.annotations?.[MigrationAnnotations.importedFrom] ?? "",
        v.spec.hash,
        creating.has(v.metadata.name) ? "to create" : "exists",
        v.spec.changeCause ?? "",
      ]),
    ),
  );
  io.stdout.write("\npods to relabel (labels only, no restart):\n");
  io.stdout.write(
    formatTable(
      ["POD", "VERSION", "CHANGE"],
      relabels.map((p) => [
        p.name,
        String(p.version),
        Object.keys(p.labels).length > 0 ? Object.keys(p.labels).join(",") : "none (labelled already)",
      ]),
    ),
  );
  io.stdout.write(
    `\nthen: delete ${statefulSetRef(name)} with propagationPolicy Orphan and wait for petset "${name}" to adopt the pods\n`,
  );
}

async function findPetSet(ctx: CommandContext, name: string): Promise<PetSet | undefined> {
  try {
    return await ctx.api.getPetSet(name);
  } catch (err) {
    if (err instanceof PluginError && err.reason === "NotFound") return undefined;
    throw err;
  }
}

/** `statefulset/web`, `statefulsets.apps/web`, `sts/web`: the name; anything else is a usage error. */
export function statefulSetName(target: string): string {
  const match =
    /^(statefulset|statefulsets|sts|statefulset\.apps|statefulsets\.apps)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(
      target,
    );
  if (match?.[2] === undefined)
    throw new PluginError("BadRequest", `expected statefulset/NAME, got "${target}"`);
  return match[2];
}

/** Calls `check` until it returns a value (true counts), failing with a Timeout error at the deadline. */
export async function pollUntil<T>(
  clock: Clock,
  what: string,
  deadline: number,
  intervalMs: number,
  check: () => Promise<T | false | undefined>,
): Promise<T> {
  const started = clock.now();
  for (;;) {
    const result = await check();
    if (result !== undefined && result !== false) return result;
    if (clock.now() >= deadline)
      throw new PluginError(
        "Timeout",
        `timed out after ${formatDuration(clock.now() - started)} waiting for ${what}; run the same command again to resume`,
        2,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

type ClaimRelabel = ReturnType<typeof planClaimLabels>[number];

/**
 * Labels one claim; on a Conflict (the claim changed since it was read: the controller, which
 * sees the new PetSet, labels a pet's existing claim itself, or kube's PVC protection adds its
 * finalizer) reads the claims again and labels what is still missing, a few times.
 */
async function labelClaim(
  api: Pick<PetSetApi, "patchClaimMetadata" | "listClaims">,
  name: string,
  claimTemplates: readonly string[],
  ordinals: readonly number[],
  first: ClaimRelabel,
): Promise<"labelled" | "labelled already"> {
  let claim: ClaimRelabel | undefined = first;
  for (let attempt = 1; ; attempt++) {
    try {
      await api.patchClaimMetadata(claim.name, { labels: claim.labels }, claim.resourceVersion);
      return "labelled";
    } catch (err) {
      if (!(err instanceof PluginError && err.reason === "Conflict") || attempt >= 5) throw err;
    }
    const fresh = planClaimLabels(name, claimTemplates, ordinals, await api.listClaims());
    claim = fresh.find((c) => c.name === first.name);
    if (claim === undefined) return "labelled already";
  }
}
