import type { PetSet } from "../../../api/index.js";
import type { CommandContext } from "../context.js";
import { PluginError } from "../errors.js";
import { formatTable } from "../format-table.js";
import { type AdoptSnapshot, comparePods } from "../migrate/adopt-plan.js";
import { controllerRef, type StatefulSet, statefulSetRef } from "../migrate/objects.js";
import {
  ReleaseAnnotations,
  ReleaseRefusedError,
  releaseLabels,
  releasePreflight,
  releaseSnapshot,
  statefulSetFor,
} from "../migrate/release-plan.js";
import { pollUntil } from "./adopt.js";
import { waitFor } from "./migration-wait.js";

export interface ReleaseOptions {
  readonly timeoutMs: number;
  readonly pollMs?: number;
}

/**
 * `kubectl petset release NAME`: hands a PetSet's pods back to an equivalent apps/v1
 * StatefulSet without restarting any, the reverse of `adopt`: create the StatefulSet with
 * updateStrategy OnDelete (it adopts orphans but restarts nothing), orphan-delete the
 * PetSet, wait for the StatefulSet to own the pods and name its revision, label the pods
 * with it, restore the update strategy, delete the orphaned versions, verify. Run it again
 * to resume.
 */
export async function releaseCommand(
  ctx: CommandContext,
  name: string,
  options: ReleaseOptions,
): Promise<number> {
  const { api, io } = ctx;
  const deadline = ctx.clock.now() + options.timeoutMs;
  const poll = options.pollMs ?? 1000;
  let sts = await api.getStatefulSet(name);
  const found = await findPetSet(ctx, name);
  const petSet = found instanceof PluginError ? undefined : found;
  const ours = sts?.metadata.annotations?.[ReleaseAnnotations.releasedFrom] === `petset/${name}`;
  // No PetSet and no release to resume: the PetSet's not-found error, which lists what exists.
  if (found instanceof PluginError && !ours) throw found;
  if (sts !== undefined && !ours)
    throw new ReleaseRefusedError(
      `statefulset "${name}" already exists and was not made by releasing petset "${name}" (no annotation ${ReleaseAnnotations.releasedFrom})`,
    );

  if (petSet !== undefined) {
    if (sts === undefined) {
      const pods = await api.listPods();
      releasePreflight(petSet, pods);
      sts = await api.createStatefulSet(statefulSetFor(petSet, releaseSnapshot(petSet, pods)));
      io.stdout.write(`${statefulSetRef(name)} created (updateStrategy OnDelete until it owns the pods)\n`);
    }
    await api.deletePetSetOrphaning(name, petSet.metadata.uid ?? "");
    io.stdout.write(`petset.petset.dev/${name} deleted (propagationPolicy: Orphan)\n`);
  }
  if (sts === undefined) throw new PluginError("NotFound", `statefulset "${name}" not found`);
  const snapshot = parseSnapshot(sts);
  const petSetUid = snapshot.statefulSetUid;

  const stalled = (awaited: string) => (stillFor: string) =>
    `no StatefulSet controller has updated ${statefulSetRef(name)}'s status for ${stillFor} (awaited: ${awaited}): is kube-controller-manager running? Once it is, run \`kubectl petset release ${name}\` again to resume`;
  const owned = await waitFor(
    ctx,
    {
      what: `${statefulSetRef(name)} to adopt the pods and record its revision`,
      stalled: stalled("it adopts the pods and records its revision"),
      look: async () => {
        const current = await api.getStatefulSet(name);
        if (current === undefined)
          throw new PluginError("NotFound", `statefulset "${name}" was deleted while releasing`);
        const pods = (await api.listPods()).filter((p) => snapshot.pods[p.metadata.name ?? ""] !== undefined);
        const owners = pods.map((p) => controllerRef(p.metadata)?.uid ?? "");
        const seen = JSON.stringify({ status: current.status ?? null, owners });
        const still = await findPetSet(ctx, name);
        if (!(still instanceof PluginError) && still.metadata.uid === petSetUid)
          return {
            progress: `petset "${name}" is still being deleted`,
            seen,
            stalled: (stillFor: string) =>
              `petset "${name}" has not been deleted for ${stillFor} (finalizers: ${still.metadata.finalizers?.join(", ") || "none"}): is the garbage collector (kube-controller-manager) running? Once it is gone, run \`kubectl petset release ${name}\` again to resume`,
          };
        const revision = current.status?.updateRevision;
        const adopted = owners.filter((uid) => uid === current.metadata.uid).length;
        const progress = `${adopted} of ${pods.length} pods owned, ${revision === undefined ? "no revision recorded yet" : `revision ${revision}`}`;
        const done =
          adopted === pods.length && revision !== undefined ? { current, revision, pods } : undefined;
        return { done, progress, seen };
      },
    },
    { deadline, pollMs: poll },
  );
  io.stdout.write(`${statefulSetRef(name)} owns the pods; revision ${owned.revision}\n`);

  for (const listed of owned.pods) {
    const podName = listed.metadata.name ?? "";
    // The StatefulSet controller and the kubelet write the pods it has just adopted: a 409 on
    // the resourceVersion precondition means "read it again", not failure.
    const labelled = await pollUntil(ctx.clock, `pod/${podName} to be labelled`, deadline, poll, async () => {
      const pod = (await api.listPods()).find((p) => p.metadata.name === podName);
      if (pod === undefined)
        throw new PluginError("NotFound", `pod "${podName}" was deleted while releasing`);
      const labels = releaseLabels(pod, owned.revision);
      if (labels === undefined) return "unchanged";
      try {
        await api.patchPodMetadata(podName, { labels }, pod.metadata.resourceVersion ?? "");
        return "labelled";
      } catch (err) {
        if (err instanceof PluginError && err.reason === "Conflict") return undefined;
        throw err;
      }
    });
    if (labelled === "labelled") io.stdout.write(`pod/${podName} labelled (revision ${owned.revision})\n`);
  }
  const strategy = owned.current.metadata.annotations?.[ReleaseAnnotations.updateStrategy];
  if (strategy !== undefined) {
    await api.patchStatefulSet(name, {
      metadata: { annotations: { [ReleaseAnnotations.updateStrategy]: null } },
      spec: { updateStrategy: { rollingUpdate: null, ...JSON.parse(strategy) } },
    });
    io.stdout.write(`${statefulSetRef(name)} updateStrategy restored\n`);
  }
  for (const version of await api.listVersions(name))
    if (controllerRef(version.metadata) === undefined) {
      await api.deleteVersion(version.metadata.name ?? "", version.metadata.uid ?? "");
      io.stdout.write(`petsetversion.petset.dev/${version.metadata.name} deleted (orphaned history)\n`);
    }

  await waitFor(
    ctx,
    {
      what: `${statefulSetRef(name)} to report every pod current and Ready`,
      stalled: stalled("it reports every pod current and Ready"),
      look: async () => {
        const current = await api.getStatefulSet(name);
        const status = current?.status as
          | {
              readyReplicas?: number;
              currentRevision?: string;
              updateRevision?: string;
              observedGeneration?: number;
            }
          | undefined;
        const replicas = current?.spec.replicas ?? 1;
        const done =
          status !== undefined &&
          status.observedGeneration === current?.metadata.generation &&
          status.currentRevision === status.updateRevision &&
          status.readyReplicas === replicas
            ? true
            : undefined;
        return {
          done,
          progress: `${status?.readyReplicas ?? 0} of ${replicas} Ready, current revision ${status?.currentRevision ?? "<none>"}, update revision ${status?.updateRevision ?? "<none>"}`,
          seen: JSON.stringify(status ?? null),
        };
      },
    },
    { deadline, pollMs: poll },
  );
  const comparison = comparePods(snapshot, await api.listPods());
  io.stdout.write(
    formatTable(
      ["POD", "UID", "RESTARTS", "RESULT"],
      comparison.map((c) => [
        c.name,
        c.before.uid,
        `${c.before.restarts} -> ${c.after?.restarts ?? "?"}`,
        c.unchanged ? "unchanged" : "CHANGED",
      ]),
    ),
  );
  const changed = comparison.filter((c) => !c.unchanged);
  if (changed.length > 0) {
    io.stderr.write(
      `error: pods replaced or restarted during release: ${changed.map((c) => c.name).join(", ")}\n`,
    );
    return 1;
  }
  // Done: the StatefulSet is an ordinary one again, with none of release's bookkeeping (which
  // `kubectl get sts -o yaml | kubectl petset convert -f -` would otherwise carry into Git).
  await api.patchStatefulSet(name, {
    metadata: {
      annotations: { [ReleaseAnnotations.releasedFrom]: null, [ReleaseAnnotations.snapshot]: null },
    },
  });
  io.stdout.write(`petset.petset.dev/${name} released to ${statefulSetRef(name)}: no pod restarted\n`);
  return 0;
}

function parseSnapshot(sts: StatefulSet): AdoptSnapshot {
  const raw = sts.metadata.annotations?.[ReleaseAnnotations.snapshot];
  try {
    const value = JSON.parse(raw ?? "") as AdoptSnapshot;
    if (typeof value.statefulSetUid === "string" && typeof value.pods === "object") return value;
  } catch {
    // reported below
  }
  throw new ReleaseRefusedError(
    `statefulset "${sts.metadata.name}" has no readable annotation ${ReleaseAnnotations.snapshot}`,
  );
}

/** The PetSet, or the error that says it is not found (and lists what the namespace has). */
async function findPetSet(ctx: CommandContext, name: string): Promise<PetSet | PluginError> {
  try {
    return await ctx.api.getPetSet(name);
  } catch (err) {
    if (err instanceof PluginError && err.reason === "NotFound") return err;
    throw err;
  }
}
