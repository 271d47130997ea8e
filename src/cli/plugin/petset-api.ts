import type { PetSet, PetSetVersion } from "../../api/index.js";

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
