/**
 * The claims rule of the invariant monitor (issue 26, docs/volumes.md): under
 * volumeClaimUpdatePolicy InPlace, a pet counted at version N (its pod labelled with N's hash)
 * has every claim of N's templates at N: request >= N's, N's template labels. Pure over what the
 * pod and claim watches delivered; judged with the API's resourceVersions, which both backends
 * hand out from one increasing sequence (etcd's revision, the embedded server's counter), so
 * "the claim as it was when the pod got its labels" is the last claim state with a smaller one.
 * The controller writes the claim before it labels or creates the pod, so that state must
 * already be N's. A claim first seen in a list (the monitor started after it was made, or
 * relisted) has no known history before that state: a pod state older than it is not judged.
 */
import { claimName, type PetSetVersion } from "../../src/api/index.js";
import { storageBytes, templateFacts } from "../../src/controller/planner/claim-template.js";

export interface ClaimState {
  rv: number;
  name: string;
  request?: string;
  labels: Readonly<Record<string, string>>;
  /** Seen in a list, not a watch event: what the claim was before this rv is unknown. */
  listed?: boolean;
}

export interface PodState {
  rv: number;
  name: string;
  ordinal: number;
  hash?: string;
  terminating: boolean;
}

export function judgeClaims(
  setName: string,
  versions: readonly PetSetVersion[],
  pods: readonly PodState[],
  claims: readonly ClaimState[],
): string[] {
  const violations: string[] = [];
  for (const pod of pods) {
    if (pod.terminating || pod.hash === undefined) continue;
    const version = [...versions].reverse().find((v) => v.spec.hash === pod.hash);
    if (version === undefined) continue;
    for (const t of version.spec.volumeClaimTemplates) {
      const want = templateFacts(t);
      const name = claimName(want.name, setName, pod.ordinal);
      const known = claims.filter((c) => c.name === name);
      const state = known.filter((c) => c.rv < pod.rv).at(-1);
      if (state === undefined && known[0]?.listed === true) continue;
      const wantBytes = storageBytes(want.request);
      const hasBytes = storageBytes(state?.request);
      const labelsOk = Object.entries(want.labels).every(([k, v]) => state?.labels[k] === v);
      const tooSmall = wantBytes !== undefined && (hasBytes === undefined || hasBytes < wantBytes);
      if (state === undefined || tooSmall || !labelsOk)
        violations.push(
          `${pod.name} labelled version ${version.spec.version} (rv ${pod.rv}) while claim ${name} was ${state === undefined ? "missing" : `${state.request ?? "?"} ${JSON.stringify(state.labels)}`}`,
        );
    }
  }
  return violations;
}
