import type { PetSet, PetSetVersion } from "../../api/index.js";
import type { Claim, ControllerRevision, Pod, StatefulSet } from "./migrate/objects.js";

/**
 * What the plugin's commands need from the API, in one namespace. The real one talks to
 * the cluster through client-node (kube-petset-api.ts); tests use an in-memory fake.
 * Every method reports failures as PluginError (not found, conflict, unreachable, ...).
 */
export interface PetSetApi {
  readonly namespace: string;
  /** The PetSet, defaulted; PetSetNotFoundError when there is none of that name. */
  getPetSet(name: string): Promise<PetSet>;
  /** Names of the PetSets in the namespace. */
  listPetSetNames(): Promise<string[]>;
  /** Every PetSetVersion labelled `petset.dev/petset=<name>`, in any order, owner unchecked. */
  listVersions(name: string): Promise<PetSetVersion[]>;
  /** How many pods of the PetSet carry each `petset.dev/version` label value. */
  podsByVersion(name: string): Promise<Map<number, number>>;
  /**
   * JSON merge patch of the PetSet. With `resourceVersion` the write is conditional: a
   * PluginError with reason Conflict if the PetSet changed since it was read. With
   * `dryRun` the server validates and answers without storing.
   */
  patchPetSet(name: string, patch: Record<string, unknown>, options?: PatchOptions): Promise<PetSet>;
  /**
   * JSON patch (RFC 6902) of the PetSet, applied atomically: when a `test` op fails (the
   * PetSet changed since it was read) nothing is written and this rejects with a PluginError
   * of reason Invalid, as the API server answers 422. `resourceVersion` is not used here:
   * the ops' own `test`s are the precondition. With `dryRun` nothing is stored.
   */
  jsonPatchPetSet(name: string, ops: readonly JsonPatchOp[], options?: { dryRun?: boolean }): Promise<PetSet>;
  /**
   * Calls `until` with the PetSet now and after every change (undefined once it is
   * deleted) until `until` returns a value, which this resolves to; undefined when
   * `timeoutMs` passes first. An error thrown by `until` rejects.
   */
  watchPetSet<R>(
    name: string,
    until: (petSet: PetSet | undefined) => R | undefined,
    timeoutMs?: number,
  ): Promise<R | undefined>;
  /** As watchPetSet, over the versions labelled for the PetSet (all of them at each call). */
  watchVersions<R>(
    name: string,
    until: (versions: PetSetVersion[]) => R | undefined,
    timeoutMs?: number,
  ): Promise<R | undefined>;

  // ---- migration (`adopt`, `convert`): StatefulSets, ControllerRevisions, pods, claims ----
  /** The apps/v1 StatefulSet, or undefined when there is none of that name. */
  getStatefulSet(name: string): Promise<StatefulSet | undefined>;
  /** Every ControllerRevision of the namespace (owner unchecked). */
  listControllerRevisions(): Promise<ControllerRevision[]>;
  /** Every pod of the namespace. */
  listPods(): Promise<Pod[]>;
  /** Every PersistentVolumeClaim of the namespace. */
  listClaims(): Promise<Claim[]>;
  /** Creates a PetSet from a manifest; a PluginError when it exists or is invalid. */
  createPetSet(manifest: Record<string, unknown>): Promise<PetSet>;
  /** Creates a PetSetVersion; false (and nothing written) when one of that name exists. */
  createVersion(version: PetSetVersion): Promise<boolean>;
  /** Merge patch of a pod's metadata, conditional on `resourceVersion` (Conflict otherwise). */
  patchPodMetadata(name: string, metadata: Record<string, unknown>, resourceVersion: string): Promise<void>;
  /** Merge patch of a claim's metadata, conditional on `resourceVersion`. */
  patchClaimMetadata(name: string, metadata: Record<string, unknown>, resourceVersion: string): Promise<void>;
  /**
   * Deletes the StatefulSet with `propagationPolicy: Orphan` and a uid precondition: its pods
   * and claims stay, the garbage collector removes its ownerReferences. NotFound is success.
   */
  deleteStatefulSetOrphaning(name: string, uid: string): Promise<void>;
  /** Creates an apps/v1 StatefulSet (`release`). */
  createStatefulSet(manifest: Record<string, unknown>): Promise<StatefulSet>;
  /** JSON merge patch of a StatefulSet. */
  patchStatefulSet(name: string, patch: Record<string, unknown>): Promise<void>;
  /** As deleteStatefulSetOrphaning, for the PetSet: its pods, claims and versions stay. */
  deletePetSetOrphaning(name: string, uid: string): Promise<void>;
  /** Deletes a PetSetVersion by name, with a uid precondition; NotFound is success. */
  deleteVersion(name: string, uid: string): Promise<void>;
}

/** One RFC 6902 operation, of the kinds the plugin sends. */
export type JsonPatchOp =
  | { readonly op: "test" | "add" | "replace"; readonly path: string; readonly value: unknown }
  | { readonly op: "remove"; readonly path: string };

export interface PatchOptions {
  readonly resourceVersion?: string;
  readonly dryRun?: boolean;
}

/** The field manager our writes are recorded under: what CHANGED-BY shows for them. */
export const FIELD_MANAGER = "kubectl-petset";
