/**
 * Writes to PetSets and PetSetVersions through client-node's CustomObjectsApi. Status and
 * spec writes carry the resourceVersion that was read (409 on a stale read).
 */
import { CustomObjectsApi, type KubeConfig, PatchStrategy } from "@kubernetes/client-node";
import { z } from "zod";
import { GROUP, PETSET_PLURAL, VERSION, VERSION_PLURAL } from "../api/names.js";
import type { PetSetStatus } from "../api/petset.js";
import type { PetSetVersion, PetSetVersionStatus } from "../api/petset-version.js";
import { isNotFound } from "./api-errors.js";
import { metadataAnswer, metadataAnswerPatch } from "./metadata-answer.js";
import type { WriteCounter } from "./write-counter.js";

export interface StatusUpdater {
  /** Writes the whole status; fails with 409 if the PetSet changed since `resourceVersion`. */
  update(namespace: string, name: string, resourceVersion: string, status: PetSetStatus): Promise<void>;
}

export interface VersionControl {
  /** Creates a version; AlreadyExists is surfaced so the caller can re-read and decide. */
  create(version: PetSetVersion): Promise<void>;
  /** Deletes exactly this version; NotFound counts as done. */
  delete(namespace: string, name: string, uid: string, resourceVersion?: string): Promise<void>;
  /** Adopts an orphan: sets the controller ownerReference (resourceVersion precondition). */
  adopt(namespace: string, name: string, resourceVersion: string, owner: OwnerRef): Promise<void>;
  /**
   * Writes the version's rollout facts (its `status` subresource) as a merge patch; fails with
   * 409 if the version changed since `resourceVersion`. Resolves with the version's new
   * resourceVersion (the one it was based on when the patch changed nothing); with none when
   * the version is gone (NotFound: nothing left to record). A CRD that predates the status
   * subresource also answers NotFound, for a version that exists: that fails with
   * VersionStatusSubresourceMissing (docs/operations.md).
   */
  recordStatus(
    namespace: string,
    name: string,
    resourceVersion: string,
    status: PetSetVersionStatus,
  ): Promise<{ resourceVersion?: string }>;
}

/**
 * The PetSetVersion CRD serves no `status` subresource (installed before rollout facts
 * existed). Facts that cannot be recorded would make a later status wipe unsafe, so the sync
 * moves no pod and says so (issue 24 item 7).
 */
export class VersionStatusSubresourceMissing extends Error {
  readonly reason = "VersionStatusSubresourceMissing";
  constructor() {
    super(
      `the CRD ${VERSION_PLURAL}.${GROUP} serves no status subresource (it predates this controller), so rollout facts cannot be recorded: upgrade the CRDs with kubectl apply -f crds/`,
    );
    this.name = "VersionStatusSubresourceMissing";
  }
}

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: true;
  blockOwnerDeletion: true;
}

export interface PetSetWriter {
  /**
   * Merge-patches a PetSet's spec and annotations (resourceVersion precondition). Resolves
   * with the PetSet's new resourceVersion, so a status write in the same sync can follow it.
   */
  patch(
    namespace: string,
    name: string,
    resourceVersion: string,
    patch: Record<string, unknown>,
  ): Promise<string | undefined>;
}

/** What an uncached read of a PetSet tells: enough to decide whether it may still adopt. */
export interface PetSetIdentity {
  uid: string;
  deleting: boolean;
}

export interface PetSetReader {
  /**
   * A quorum read of the PetSet, bypassing the cache (as StatefulSets re-check before adopting:
   * the cache may not show a deletion yet); undefined when it does not exist.
   */
  getFresh(namespace: string, name: string): Promise<PetSetIdentity | undefined>;
}

const FreshIdentitySchema = z.object({
  metadata: z.object({ uid: z.string(), deletionTimestamp: z.unknown().optional() }),
});

// Only the answers' metadata is read (metadata-answer.ts).
const merge = metadataAnswerPatch(PatchStrategy.MergePatch);

export function createPetSetClient(kubeConfig: KubeConfig, writes: WriteCounter) {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };
  const psv = { group: GROUP, version: VERSION, plural: VERSION_PLURAL };
  const status: StatusUpdater = {
    async update(namespace, name, resourceVersion, st) {
      writes.count("patch", "petsets/status");
      await api.patchNamespacedCustomObjectStatus(
        // A merge patch keeps what it does not mention: `hooks: null` clears the list once no
        // hook runs, `rolloutStep: null` once no step-wise rollout holds (the other fields are
        // always present).
        {
          ...ps,
          namespace,
          name,
          body: {
            metadata: { resourceVersion },
            status: { ...st, hooks: st.hooks ?? null, rolloutStep: st.rolloutStep ?? null },
          },
        },
        merge,
      );
    },
  };
  const versions: VersionControl = {
    async create(version) {
      writes.count("create", "petsetversions");
      await api.createNamespacedCustomObject(
        {
          ...psv,
          namespace: version.metadata.namespace ?? "default",
          body: version,
        },
        metadataAnswer(),
      );
    },
    async delete(namespace, name, uid, resourceVersion) {
      writes.count("delete", "petsetversions");
      try {
        await api.deleteNamespacedCustomObject(
          {
            ...psv,
            namespace,
            name,
            body: { preconditions: { uid, ...(resourceVersion ? { resourceVersion } : {}) } },
          },
          metadataAnswer(),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    async adopt(namespace, name, resourceVersion, owner) {
      writes.count("patch", "petsetversions");
      await api.patchNamespacedCustomObject(
        { ...psv, namespace, name, body: { metadata: { resourceVersion, ownerReferences: [owner] } } },
        merge,
      );
    },
    async recordStatus(namespace, name, resourceVersion, st) {
      writes.count("patch", "petsetversions/status");
      try {
        // A merge patch keeps what it does not mention: the fields of `steps` a step leaves
        // behind (pausedAt, pets) are cleared with null.
        const steps = st.steps && {
          pausedAt: null,
          pets: null,
          promotedAt: null,
          promotion: null,
          ...st.steps,
        };
        const written = (await api.patchNamespacedCustomObjectStatus(
          {
            ...psv,
            namespace,
            name,
            body: { metadata: { resourceVersion }, status: { ...st, ...(steps ? { steps } : {}) } },
          },
          merge,
        )) as { metadata?: { resourceVersion?: string } } | undefined;
        const rv = written?.metadata?.resourceVersion;
        return rv === undefined ? {} : { resourceVersion: rv };
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      // NotFound on /status: the version is gone, or the CRD serves no status subresource (kube
      // answers the same NotFound for both). An uncached read tells which.
      try {
        await api.getNamespacedCustomObject({ ...psv, namespace, name });
      } catch (err) {
        if (isNotFound(err)) return {};
        throw err;
      }
      throw new VersionStatusSubresourceMissing();
    },
  };
  const petSets: PetSetWriter & PetSetReader = {
    async getFresh(namespace, name) {
      try {
        const obj = FreshIdentitySchema.parse(
          await api.getNamespacedCustomObject({ ...ps, namespace, name }),
        );
        return { uid: obj.metadata.uid, deleting: obj.metadata.deletionTimestamp != null };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async patch(namespace, name, resourceVersion, patch) {
      writes.count("patch", "petsets");
      const meta = (patch.metadata ?? {}) as Record<string, unknown>;
      const updated = (await api.patchNamespacedCustomObject(
        { ...ps, namespace, name, body: { ...patch, metadata: { ...meta, resourceVersion } } },
        merge,
      )) as { metadata?: { resourceVersion?: string } } | undefined;
      return updated?.metadata?.resourceVersion;
    },
  };
  return { status, versions, petSets };
}
