/**
 * Feeds the claims rule (claim-invariant-rules.ts) from the invariant monitor's pod and claim
 * watches and judges it at stop(): only for a PetSet whose volumeClaimUpdatePolicy is InPlace
 * (under OnClaimDelete claims are not expected to follow), against its versions as listed then.
 */
import type { CustomObjectsApi, V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import {
  GROUP,
  Labels,
  PETSET_PLURAL,
  parsePetSetVersion,
  VERSION,
  VERSION_PLURAL,
} from "../../src/api/index.js";
import { type ClaimState, judgeClaims, type PodState } from "./claim-invariant-rules.js";
import type { Violation } from "./invariant-rules.js";

export interface ClaimFeed {
  pod(p: V1Pod): void;
  /** `listed`: from a list (its history before is unknown), not a watch event. */
  claim(c: V1PersistentVolumeClaim, listed?: boolean): void;
  readonly pods: PodState[];
  readonly claims: ClaimState[];
}

const rvOf = (o: { metadata?: { resourceVersion?: string } }) => Number(o.metadata?.resourceVersion ?? 0);

export function claimFeed(): ClaimFeed {
  const pods: PodState[] = [];
  const claims: ClaimState[] = [];
  return {
    pods,
    claims,
    pod(p) {
      const hash = p.metadata?.labels?.[Labels.hash];
      pods.push({
        rv: rvOf(p),
        name: p.metadata?.name ?? "",
        ordinal: Number(p.metadata?.labels?.[Labels.podIndex] ?? -1),
        ...(hash !== undefined ? { hash } : {}),
        terminating: p.metadata?.deletionTimestamp !== undefined,
      });
    },
    claim(c, listed = false) {
      const request = c.spec?.resources?.requests?.storage;
      claims.push({
        rv: rvOf(c),
        name: c.metadata?.name ?? "",
        ...(request !== undefined ? { request: String(request) } : {}),
        labels: { ...(c.metadata?.labels ?? {}) },
        ...(listed ? { listed } : {}),
      });
    },
  };
}

export async function judgeClaimsOf(
  custom: CustomObjectsApi,
  namespace: string,
  setName: string,
  feed: ClaimFeed,
): Promise<Violation[]> {
  const set = (await custom
    .getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PETSET_PLURAL,
      name: setName,
    })
    .catch(() => undefined)) as { spec?: { volumeClaimUpdatePolicy?: string } } | undefined;
  if (set?.spec?.volumeClaimUpdatePolicy !== "InPlace") return [];
  const list = (await custom.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: VERSION_PLURAL,
    labelSelector: `${Labels.petSet}=${setName}`,
  })) as { items?: unknown[] };
  const versions = (list.items ?? []).map(parsePetSetVersion);
  const at = new Date().toISOString();
  return judgeClaims(setName, versions, feed.pods, feed.claims).map((message) => ({
    rule: "claims",
    at,
    message,
  }));
}
