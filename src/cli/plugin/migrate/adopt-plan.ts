/**
 * `kubectl petset adopt statefulset/NAME`, the pure half: preflight, the labels each pod
 * needs, and the snapshot that proves afterwards that no pod restarted (the versions to
 * import are import-plan.ts). Cluster objects in, plain data out; the command
 * (commands/adopt.ts) reads and writes.
 */
import { Annotations, claimName, Labels, type PetSet, type PetSetVersion } from "../../../api/index.js";
import { petOrdinal } from "../../../controller/planner/ownership.js";
import { PluginError } from "../errors.js";
import { convertStatefulSet } from "./convert.js";
import {
  type Claim,
  type ControllerRevision,
  controllerRef,
  isReady,
  type Pod,
  REVISION_LABEL,
  restartCount,
  type StatefulSet,
} from "./objects.js";

export const MigrationAnnotations = {
  /** On a PetSet made by `adopt`: `statefulset/NAME`. A re-run resumes only such a PetSet. */
  adoptedFrom: "petset.dev/adopted-from",
  /** On a PetSet made by `adopt`: pod uids and restarts before adoption (JSON, AdoptSnapshot). */
  snapshot: "petset.dev/adoption-snapshot",
  /** On an imported PetSetVersion: the ControllerRevision it was made from. */
  importedFrom: "petset.dev/imported-from",
} as const;

/** Adoption refused before anything changed: names the object and the field. */
export class AdoptRefusedError extends PluginError {
  override name = "AdoptRefusedError";
  constructor(message: string) {
    super("Invalid", `cannot adopt: ${message}`);
  }
}

export interface PodSnapshot {
  readonly uid: string;
  readonly restarts: number;
}

/** What the pods were before adoption; recorded on the PetSet so a resumed run compares against it. */
export interface AdoptSnapshot {
  readonly statefulSetUid: string;
  readonly pods: Readonly<Record<string, PodSnapshot>>;
}

export function parseSnapshot(petSet: PetSet): AdoptSnapshot | undefined {
  const raw = petSet.metadata.annotations?.[MigrationAnnotations.snapshot];
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as AdoptSnapshot;
    return typeof value.statefulSetUid === "string" && typeof value.pods === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

export const adoptedFromValue = (name: string): string => `statefulset/${name}`;

/** The pods named as pets of `name` (`<name>-<ordinal>`), by ordinal. */
export function petPods(name: string, pods: readonly Pod[]): Map<number, Pod> {
  const out = new Map<number, Pod>();
  for (const pod of pods) {
    const ordinal = petOrdinal(name, pod.metadata.name ?? "");
    if (ordinal !== undefined) out.set(ordinal, pod);
  }
  return out;
}

/** The revisions the StatefulSet controls, oldest first (by `.revision`). */
export function ownedRevisions(
  sts: StatefulSet,
  revisions: readonly ControllerRevision[],
): ControllerRevision[] {
  return revisions
    .filter(
      (r) =>
        controllerRef(r.metadata)?.uid === sts.metadata.uid && r.metadata.deletionTimestamp === undefined,
    )
    .sort((a, b) => a.revision - b.revision);
}

export interface PreflightInput {
  readonly statefulSet: StatefulSet;
  readonly revisions: readonly ControllerRevision[];
  readonly pods: readonly Pod[];
  readonly claims: readonly Claim[];
  /** The PetSet of that name, if any. */
  readonly petSet: PetSet | undefined;
}

/**
 * Everything that must hold before anything is written. Throws AdoptRefusedError naming
 * the first problem. Returns the PetSet manifest (without the adoption annotations).
 */
export function preflight(input: PreflightInput): Record<string, unknown> {
  const { statefulSet: sts } = input;
  const name = sts.metadata.name ?? "";
  const what = `statefulset "${name}"`;
  const manifest = convertStatefulSet(sts);
  if (sts.metadata.deletionTimestamp !== undefined && input.petSet === undefined)
    throw new AdoptRefusedError(`${what} is being deleted (metadata.deletionTimestamp is set)`);
  if (input.petSet !== undefined) {
    const from = input.petSet.metadata.annotations?.[MigrationAnnotations.adoptedFrom];
    if (from !== adoptedFromValue(name))
      throw new AdoptRefusedError(
        `petset "${name}" already exists and was not made by adopting ${what} (no annotation ${MigrationAnnotations.adoptedFrom}: ${adoptedFromValue(name)})`,
      );
    const snapshot = parseSnapshot(input.petSet);
    if (snapshot?.statefulSetUid !== sts.metadata.uid)
      throw new AdoptRefusedError(
        `petset "${name}" was made by adopting another statefulset "${name}" (annotation ${MigrationAnnotations.snapshot} names uid ${snapshot?.statefulSetUid ?? "none"}, not ${sts.metadata.uid})`,
      );
  }

  const replicas = sts.spec.replicas ?? 1;
  const start = sts.spec.ordinals?.start ?? 0;
  const pets = petPods(name, input.pods);
  for (const [ordinal, pod] of [...pets].sort(([a], [b]) => a - b)) {
    if (ordinal < start || ordinal >= start + replicas)
      throw new AdoptRefusedError(
        `pod ${pod.metadata.name} is outside spec.ordinals.start=${start} .. start+spec.replicas-1=${start + replicas - 1} of ${what}: wait until it has scaled`,
      );
  }
  const live = new Set<string>();
  const owned = ownedRevisions(sts, input.revisions);
  const revisionNames = new Set(owned.map((r) => r.metadata.name));
  const claimsByName = new Map(input.claims.map((c) => [c.metadata.name, c]));
  const templates = (sts.spec.volumeClaimTemplates ?? []).map((t) =>
    String((t.metadata as { name?: unknown } | undefined)?.name ?? ""),
  );
  for (let ordinal = start; ordinal < start + replicas; ordinal++) {
    const pod = pets.get(ordinal);
    const podName = `${name}-${ordinal}`;
    if (pod === undefined)
      throw new AdoptRefusedError(
        `pod ${podName} of ${what} does not exist (spec.replicas=${replicas}): wait until every pet runs`,
      );
    if (pod.metadata.deletionTimestamp !== undefined)
      throw new AdoptRefusedError(`pod ${podName} of ${what} is terminating: wait until it is replaced`);
    if (!isReady(pod))
      throw new AdoptRefusedError(
        `pod ${podName} of ${what} is not Ready (status.conditions[Ready]): adopt only a healthy set`,
      );
    const owner = controllerRef(pod.metadata);
    const ownedByUs =
      owner === undefined
        ? input.petSet !== undefined
        : owner.uid === sts.metadata.uid || owner.uid === input.petSet?.metadata.uid;
    if (!ownedByUs)
      throw new AdoptRefusedError(
        `pod ${podName} is controlled by ${owner?.kind ?? "nothing"}/${owner?.name ?? ""} (metadata.ownerReferences), not by ${what}`,
      );
    const revision = pod.metadata.labels?.[REVISION_LABEL];
    if (revision === undefined)
      throw new AdoptRefusedError(
        `pod ${podName} has no label ${REVISION_LABEL}: its revision of ${what} is unknown`,
      );
    if (!revisionNames.has(revision))
      throw new AdoptRefusedError(
        `pod ${podName} runs revision ${revision} (label ${REVISION_LABEL}), which is not a ControllerRevision of ${what}`,
      );
    live.add(revision);
    for (const template of templates) {
      const claim = claimName(template, name, ordinal);
      const found = claimsByName.get(claim);
      if (found === undefined)
        throw new AdoptRefusedError(
          `claim ${claim} of pod ${podName} (spec.volumeClaimTemplates "${template}") does not exist`,
        );
      const claimOwner = controllerRef(found.metadata);
      if (
        claimOwner !== undefined &&
        claimOwner.uid !== sts.metadata.uid &&
        claimOwner.uid !== input.petSet?.metadata.uid
      )
        throw new AdoptRefusedError(
          `claim ${claim} is controlled by ${claimOwner.kind}/${claimOwner.name} (metadata.ownerReferences): petset would never adopt it`,
        );
    }
  }
  if (live.size > 2)
    throw new AdoptRefusedError(
      `the pods of ${what} run ${live.size} revisions (${[...live].sort().join(", ")}; label ${REVISION_LABEL}): a PetSet runs at most 2; let the rollout finish first`,
    );
  return manifest;
}

export interface PodRelabel {
  readonly name: string;
  readonly resourceVersion: string;
  readonly version: number;
  /** Labels (and the generation annotation) to merge; empty when the pod has them already. */
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

/**
 * The labels that make a StatefulSet pod a pet the controller recognises: the version it
 * runs (from its `controller-revision-hash` via the imported versions), its hash, the set and
 * its ordinal. Metadata only: no pod restarts.
 */
export function planPodLabels(
  name: string,
  versions: readonly PetSetVersion[],
  pods: readonly Pod[],
): PodRelabel[] {
  const byRevision = new Map(
    versions.map((v) => [v.metadata.annotations?.[MigrationAnnotations.importedFrom], v]),
  );
  const out: PodRelabel[] = [];
  for (const [ordinal, pod] of [...petPods(name, pods)].sort(([a], [b]) => a - b)) {
    const podName = pod.metadata.name ?? "";
    const revision = pod.metadata.labels?.[REVISION_LABEL];
    const version = byRevision.get(revision);
    if (version === undefined) {
      if (
        pod.metadata.labels?.[Labels.petSet] === name &&
        pod.metadata.labels?.[Labels.version] !== undefined
      )
        continue;
      throw new AdoptRefusedError(
        `pod ${podName} runs revision ${revision ?? "<none>"} (label ${REVISION_LABEL}), which no imported version records`,
      );
    }
    const wanted: Record<string, string> = {
      [Labels.petSet]: name,
      [Labels.version]: String(version.spec.version),
      [Labels.hash]: version.spec.hash,
      [Labels.podIndex]: String(ordinal),
    };
    const labels = Object.fromEntries(
      Object.entries(wanted).filter(([k, v]) => pod.metadata.labels?.[k] !== v),
    );
    const generation = String(version.spec.generation);
    const annotations: Record<string, string> =
      pod.metadata.annotations?.[Annotations.generation] === generation
        ? {}
        : { [Annotations.generation]: generation };
    out.push({
      name: podName,
      resourceVersion: pod.metadata.resourceVersion ?? "",
      version: version.spec.version,
      labels,
      annotations,
    });
  }
  return out;
}

/** Labels that put a pet's claims into the controller's view (its caches select on petset.dev/petset). */
export function planClaimLabels(
  name: string,
  claimTemplates: readonly string[],
  ordinals: readonly number[],
  claims: readonly Claim[],
) {
  const byName = new Map(claims.map((c) => [c.metadata.name, c]));
  const out: { name: string; resourceVersion: string; labels: Record<string, string> }[] = [];
  for (const ordinal of ordinals)
    for (const template of claimTemplates) {
      const claim = byName.get(claimName(template, name, ordinal));
      if (claim === undefined) continue;
      const wanted = { [Labels.petSet]: name, [Labels.podIndex]: String(ordinal) };
      const labels = Object.fromEntries(
        Object.entries(wanted).filter(([k, v]) => claim.metadata.labels?.[k] !== v),
      );
      if (Object.keys(labels).length > 0)
        out.push({
          name: claim.metadata.name ?? "",
          resourceVersion: claim.metadata.resourceVersion ?? "",
          labels,
        });
    }
  return out;
}

export function snapshotOf(sts: StatefulSet, pods: readonly Pod[]): AdoptSnapshot {
  const entries = [...petPods(sts.metadata.name ?? "", pods)]
    .sort(([a], [b]) => a - b)
    .map(
      ([, pod]) =>
        [pod.metadata.name ?? "", { uid: pod.metadata.uid ?? "", restarts: restartCount(pod) }] as const,
    );
  return { statefulSetUid: sts.metadata.uid ?? "", pods: Object.fromEntries(entries) };
}

/** The PetSet to create: the converted manifest plus where it came from and the snapshot. */
export function adoptedPetSetManifest(
  manifest: Record<string, unknown>,
  name: string,
  namespace: string,
  snapshot: AdoptSnapshot,
): Record<string, unknown> {
  const metadata = manifest.metadata as { annotations?: Record<string, string> };
  return {
    ...manifest,
    metadata: {
      ...metadata,
      namespace,
      annotations: {
        ...(metadata.annotations ?? {}),
        [MigrationAnnotations.adoptedFrom]: adoptedFromValue(name),
        [MigrationAnnotations.snapshot]: JSON.stringify(snapshot),
      },
    },
  };
}

export interface PodComparison {
  readonly name: string;
  readonly before: PodSnapshot;
  readonly after: PodSnapshot | undefined;
  readonly unchanged: boolean;
}

/** Each snapshotted pod now: same uid (not replaced) and same restarts (not restarted). */
export function comparePods(snapshot: AdoptSnapshot, pods: readonly Pod[]): PodComparison[] {
  const now = new Map(pods.map((p) => [p.metadata.name ?? "", p]));
  return Object.entries(snapshot.pods).map(([name, before]) => {
    const pod = now.get(name);
    const after =
      pod === undefined ? undefined : { uid: pod.metadata.uid ?? "", restarts: restartCount(pod) };
    return {
      name,
      before,
      after,
      unchanged: after?.uid === before.uid && after.restarts === before.restarts,
    };
  });
}
