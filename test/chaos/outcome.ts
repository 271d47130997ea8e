/**
 * What a chaos run is judged on once faults stop, read from the API as a user would:
 * - versions: numbers exactly 1..N per PetSet (chaos PetSets keep all history, so no
 *   documented rule skips one: docs/versions.md "Numbering"), names matching numbers, no
 *   change recorded twice (two consecutive versions of one content, or a repeat of older
 *   content without `rollbackOf`: SPEC rule 1), and the newest version is the last spec
 *   written (no change lost);
 * - convergence: within a bound after the last (healing) change, every pet Ready at the
 *   newest version, status current = update = newest, Progressing RolloutComplete (never
 *   more than two versions live).
 * The verdicts (`judgeVersions`, `judgeConvergence`) are pure functions over what was read,
 * so test/unit/chaos/outcome.test.ts feeds them planted histories; hook side effects are
 * judged in hook-outcome.ts.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import {
  ConditionTypes,
  GROUP,
  Labels,
  PETSET_PLURAL,
  type PetSet,
  type PetSetVersion,
  parsePetSet,
  parsePetSetVersion,
  VERSION,
  VERSION_PLURAL,
} from "../../src/api/index.js";
import { HEALED_IMAGE } from "./scenario.js";

export interface VersionFindings {
  lost: string[];
  duplicated: string[];
}

export async function listVersions(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<PetSetVersion[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const list = (await custom.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: VERSION_PLURAL,
    namespace,
    labelSelector: `${Labels.petSet}=${name}`,
  })) as { items: unknown[] };
  return list.items
    .map((i) => parsePetSetVersion(i))
    .filter((v) => v.spec.petSet === name)
    .sort((a, b) => a.spec.version - b.spec.version);
}

export function judgeVersions(name: string, versions: PetSetVersion[]): VersionFindings {
  const lost: string[] = [];
  const duplicated: string[] = [];
  const numbers = versions.map((v) => v.spec.version);
  const max = Math.max(0, ...numbers);
  for (let n = 1; n <= max; n++)
    if (!numbers.includes(n)) lost.push(`${name}: version ${n} missing (have ${numbers.join(",")})`);
  if (new Set(numbers).size !== numbers.length)
    duplicated.push(`${name}: a number used twice (${numbers.join(",")})`);
  const seen = new Map<string, number>();
  versions.forEach((v, i) => {
    if (v.metadata.name !== `${name}-v${v.spec.version}`)
      duplicated.push(`${name}: ${v.metadata.name} holds number ${v.spec.version}`);
    const prev = versions[i - 1];
    if (prev && prev.spec.hash === v.spec.hash)
      duplicated.push(`${name}: v${prev.spec.version} and v${v.spec.version} record the same content`);
    else if (seen.has(v.spec.hash) && v.spec.rollbackOf === undefined)
      duplicated.push(`${name}: v${v.spec.version} repeats v${seen.get(v.spec.hash)} without rollbackOf`);
    if (!seen.has(v.spec.hash)) seen.set(v.spec.hash, v.spec.version);
  });
  const newest = versions.at(-1);
  const image = newest?.spec.template.spec?.containers?.[0]?.image;
  if (image !== HEALED_IMAGE)
    lost.push(
      `${name}: the newest version (v${newest?.spec.version ?? "none"}) runs ${image}, not the last spec's ${HEALED_IMAGE} (history: ${versions
        .map(
          (v) =>
            `v${v.spec.version} ${v.spec.template.spec?.containers?.[0]?.image ?? "?"}${v.spec.rollbackOf ? ` rollbackOf v${v.spec.rollbackOf}` : ""} "${v.spec.changeCause ?? ""}"`,
        )
        .join("; ")})`,
    );
  return { lost, duplicated };
}

/** undefined when converged to the newest version, else what is still off (read from the API). */
export async function convergenceGap(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const p: PetSet = parsePetSet(
    await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: PETSET_PLURAL,
      namespace,
      name,
    }),
  );
  const newest = (await listVersions(kc, namespace, name)).at(-1)?.spec.version;
  const pods: V1Pod[] = (await core.listNamespacedPod({ namespace, labelSelector: `app=${name}` })).items;
  return judgeConvergence(p, newest, pods);
}

/**
 * The convergence verdict over plain data (unit-tested with planted states): undefined when
 * every pet is Ready at `newest`, status current = update = newest and Progressing says
 * RolloutComplete; else what is still off, naming more than two versions live first.
 */
export function judgeConvergence(p: PetSet, newest: number | undefined, pods: V1Pod[]): string | undefined {
  const name = p.metadata.name;
  const ready = (pod: V1Pod) =>
    pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
  const progressing = p.status?.conditions?.find((c) => c.type === ConditionTypes.progressing);
  const off: string[] = [];
  const live = pods.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
  const versions = [...new Set(pods.map((pod) => pod.metadata?.labels?.[Labels.version] ?? "?"))].sort();
  if (versions.length > 2)
    off.push(`${versions.length} versions live (${versions.map((v) => `v${v}`).join(",")})`);
  if (p.status?.observedGeneration !== p.metadata.generation)
    off.push(`observedGeneration ${p.status?.observedGeneration} of ${p.metadata.generation}`);
  if (newest === undefined || p.status?.currentVersion !== newest || p.status?.updateVersion !== newest)
    off.push(`current v${p.status?.currentVersion} update v${p.status?.updateVersion}, newest v${newest}`);
  if (progressing?.reason !== "RolloutComplete")
    off.push(`Progressing ${progressing?.reason}: ${progressing?.message ?? ""}`);
  if (live.length !== p.spec.replicas || pods.length !== live.length)
    off.push(
      `${live.length} live pods (${pods.length - live.length} terminating) for ${p.spec.replicas} replicas`,
    );
  for (const pod of pods) {
    const v = Number(pod.metadata?.labels?.[Labels.version]);
    if (v !== newest || !ready(pod))
      off.push(`${pod.metadata?.name} v${v} ready=${ready(pod)}${podDetail(pod)}`);
  }
  return off.length === 0 ? undefined : `${name}: ${off.join("; ")}`;
}

/**
 * What a not-Ready pod shows (for the open finding "two pets not Ready under load",
 * docs/reliability.md): when it was created and deleted, its phase, node, conditions and
 * container states, so a stalled kubelet can be told from a lost event.
 */
function podDetail(pod: V1Pod): string {
  const m = pod.metadata;
  const s = pod.status;
  const conditions = (s?.conditions ?? [])
    .map(
      (c) => `${c.type}=${c.status}@${c.lastTransitionTime?.toISOString?.() ?? c.lastTransitionTime ?? "?"}`,
    )
    .join(",");
  const containers = (s?.containerStatuses ?? [])
    .map(
      (c) => `${c.name}:${c.image}:${Object.keys(c.state ?? {}).join("|") || "?"}${c.ready ? ":ready" : ""}`,
    )
    .join(",");
  const created = m?.creationTimestamp?.toISOString?.() ?? String(m?.creationTimestamp ?? "?");
  const deleting = m?.deletionTimestamp !== undefined ? ` deleting since ${String(m.deletionTimestamp)}` : "";
  return ` (created ${created}${deleting}, rv ${m?.resourceVersion ?? "?"}, phase ${s?.phase ?? "none"}, node ${pod.spec?.nodeName ?? "none"}, conditions ${conditions || "none"}, containers ${containers || "none"})`;
}
