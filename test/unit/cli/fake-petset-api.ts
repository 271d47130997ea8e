/**
 * An in-memory PetSetApi for command tests: PetSets as raw JSON with resourceVersions,
 * merge patches applied per RFC 7386, JSON patches per RFC 6902 (all or nothing, a failed
 * `test` is a 422 Invalid as on the API server), watches that fire on every change, error
 * injection ("fail the next patch with a conflict") and a hook that changes the PetSet
 * between a command's read and its write.
 */
import jsonpatch from "fast-json-patch";
import { type PetSet, type PetSetStatus, type PetSetVersion, parsePetSet } from "../../../src/api/index.js";
import { PetSetNotFoundError, PluginError } from "../../../src/cli/plugin/errors.js";
import type { Claim, ControllerRevision, Pod, StatefulSet } from "../../../src/cli/plugin/migrate/objects.js";
import type { JsonPatchOp, PatchOptions, PetSetApi } from "../../../src/cli/plugin/petset-api.js";

/** RFC 7386 MergePatch, from the RFC's pseudo-code. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

export interface RecordedPatch {
  name: string;
  patch: Record<string, unknown>;
  options: PatchOptions;
}

export interface RecordedJsonPatch {
  name: string;
  ops: JsonPatchOp[];
  dryRun: boolean;
}

export class FakePetSetApi implements PetSetApi {
  readonly namespace = "default";
  readonly patches: RecordedPatch[] = [];
  readonly jsonPatches: RecordedJsonPatch[] = [];
  /** Run (and removed) at the start of the next patch of either kind: a concurrent writer. */
  readonly beforeNextPatch: Array<() => void> = [];
  /** Errors the next patches throw, in order, before touching anything. */
  readonly failNextPatches: PluginError[] = [];
  /** Called after each stored patch: stands in for the controller. */
  onPatched: (petSet: PetSet) => void = () => {};
  versions: PetSetVersion[] = [];
  pods = new Map<number, number>();
  private readonly petSets = new Map<string, unknown>();
  private readonly listeners = new Set<() => void>();
  private rv = 100;

  put(petSet: PetSet): void {
    this.petSets.set(petSet.metadata.name ?? "", JSON.parse(JSON.stringify(petSet)));
    this.changed();
  }

  setStatus(name: string, status: Partial<PetSetStatus>): void {
    const raw = this.petSets.get(name) as { status?: object };
    this.petSets.set(name, { ...raw, status: { ...raw.status, ...status } });
    this.bump(name);
    this.changed();
  }

  addVersion(version: PetSetVersion): void {
    this.versions = [...this.versions, version];
    this.changed();
  }

  async getPetSet(name: string): Promise<PetSet> {
    const raw = this.petSets.get(name);
    if (raw === undefined) throw new PetSetNotFoundError(name, this.namespace);
    return parsePetSet(structuredClone(raw));
  }

  async listPetSetNames(): Promise<string[]> {
    return [...this.petSets.keys()];
  }

  async listVersions(): Promise<PetSetVersion[]> {
    return structuredClone(this.versions);
  }

  async podsByVersion(): Promise<Map<number, number>> {
    return new Map(this.pods);
  }

  async patchPetSet(
    name: string,
    patch: Record<string, unknown>,
    options: PatchOptions = {},
  ): Promise<PetSet> {
    this.patches.push({ name, patch: structuredClone(patch), options });
    this.beforeNextPatch.shift()?.();
    const injected = this.failNextPatches.shift();
    if (injected) throw injected;
    const current = await this.getPetSet(name);
    if (options.resourceVersion !== undefined && options.resourceVersion !== current.metadata.resourceVersion)
      throw new PluginError("Conflict", "Error from server (Conflict): the object has been modified");
    if (options.dryRun) return current;
    this.petSets.set(name, applyMergePatch(this.petSets.get(name), patch));
    this.bump(name);
    const updated = await this.getPetSet(name);
    this.changed();
    this.onPatched(updated);
    return updated;
  }

  async jsonPatchPetSet(
    name: string,
    ops: readonly JsonPatchOp[],
    options: { dryRun?: boolean } = {},
  ): Promise<PetSet> {
    this.jsonPatches.push({ name, ops: structuredClone([...ops]), dryRun: options.dryRun ?? false });
    this.beforeNextPatch.shift()?.();
    const injected = this.failNextPatches.shift();
    if (injected) throw injected;
    const raw = this.petSets.get(name);
    if (raw === undefined) throw new PetSetNotFoundError(name, this.namespace);
    let patched: unknown;
    try {
      patched = jsonpatch.applyPatch(
        structuredClone(raw),
        ops as jsonpatch.Operation[],
        true,
        false,
      ).newDocument;
    } catch (err) {
      throw new PluginError(
        "Invalid",
        "Error from server (Invalid): the server rejected our request due to an error in our request",
        1,
        { cause: err },
      );
    }
    if (options.dryRun) return parsePetSet(patched);
    this.petSets.set(name, patched);
    this.bump(name);
    const updated = await this.getPetSet(name);
    this.changed();
    this.onPatched(updated);
    return updated;
  }

  /** Changes the stored PetSet in place, as another writer would (bumps its resourceVersion). */
  mutate(
    name: string,
    change: (raw: { spec: { template: { spec: Record<string, unknown[]> } } }) => void,
  ): void {
    const raw = structuredClone(this.petSets.get(name)) as Parameters<typeof change>[0];
    change(raw);
    this.petSets.set(name, raw);
    this.bump(name);
    this.changed();
  }

  watchPetSet<R>(name: string, until: (p: PetSet | undefined) => R | undefined, timeoutMs?: number) {
    return this.watch(() => {
      const raw = this.petSets.get(name);
      return until(raw === undefined ? undefined : parsePetSet(structuredClone(raw)));
    }, timeoutMs);
  }

  watchVersions<R>(_name: string, until: (v: PetSetVersion[]) => R | undefined, timeoutMs?: number) {
    return this.watch(() => until(structuredClone(this.versions)), timeoutMs);
  }

  private watch<R>(check: () => R | undefined, timeoutMs?: number): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const listener = () => {
        try {
          const result = check();
          if (result === undefined) return;
          done();
          resolve(result);
        } catch (err) {
          done();
          reject(err);
        }
      };
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      if (timeoutMs !== undefined)
        timer = setTimeout(() => {
          done();
          resolve(undefined);
        }, timeoutMs);
      this.listeners.add(listener);
      listener();
    });
  }

  // ---- migration: StatefulSets, ControllerRevisions, pods and claims ----
  statefulSets = new Map<string, StatefulSet>();
  revisions: ControllerRevision[] = [];
  podObjects: Pod[] = [];
  claims: Claim[] = [];
  /** Every write of the migration methods, in order: `create psv web-v1`, `patch pod web-0`, ... */
  readonly writes: string[] = [];
  /** Called after an orphaning delete of a StatefulSet: stands in for the GC and the controller. */
  onStatefulSetDeleted: (name: string, uid: string) => void = () => {};

  async getStatefulSet(name: string): Promise<StatefulSet | undefined> {
    const sts = this.statefulSets.get(name);
    return sts === undefined ? undefined : structuredClone(sts);
  }

  async listControllerRevisions(): Promise<ControllerRevision[]> {
    return structuredClone(this.revisions);
  }

  async listPods(): Promise<Pod[]> {
    return structuredClone(this.podObjects);
  }

  async listClaims(): Promise<Claim[]> {
    return structuredClone(this.claims);
  }

  async createPetSet(manifest: Record<string, unknown>): Promise<PetSet> {
    const name = (manifest.metadata as { name: string }).name;
    this.writes.push(`create petset ${name}`);
    if (this.petSets.has(name))
      throw new PluginError(
        "ServerError",
        `Error from server (AlreadyExists): petsets.petset.dev "${name}" already exists`,
      );
    const stored = structuredClone(manifest) as { metadata: Record<string, unknown> };
    stored.metadata = { ...stored.metadata, uid: `uid-petset-${name}`, generation: 1 };
    this.petSets.set(name, stored);
    this.bump(name);
    this.changed();
    return this.getPetSet(name);
  }

  async createVersion(version: PetSetVersion): Promise<boolean> {
    this.writes.push(`create psv ${version.metadata.name}`);
    if (this.versions.some((v) => v.metadata.name === version.metadata.name)) return false;
    this.addVersion(structuredClone(version));
    return true;
  }

  async patchPodMetadata(
    name: string,
    metadata: Record<string, unknown>,
    resourceVersion: string,
  ): Promise<void> {
    this.writes.push(`patch pod ${name}`);
    this.podObjects = this.patchObject(this.podObjects, "pod", name, metadata, resourceVersion);
  }

  async patchClaimMetadata(
    name: string,
    metadata: Record<string, unknown>,
    resourceVersion: string,
  ): Promise<void> {
    this.writes.push(`patch pvc ${name}`);
    this.claims = this.patchObject(this.claims, "persistentvolumeclaim", name, metadata, resourceVersion);
  }

  async deleteStatefulSetOrphaning(name: string, uid: string): Promise<void> {
    this.writes.push(`delete statefulset ${name} orphan`);
    const sts = this.statefulSets.get(name);
    if (sts === undefined) return;
    if (sts.metadata.uid !== uid)
      throw new PluginError("Conflict", "Error from server (Conflict): precondition failed: UID");
    this.statefulSets.delete(name);
    this.onStatefulSetDeleted(name, uid);
  }

  async createStatefulSet(manifest: Record<string, unknown>): Promise<StatefulSet> {
    const sts = structuredClone(manifest) as StatefulSet;
    sts.metadata = { ...sts.metadata, uid: `uid-sts-${sts.metadata.name}`, generation: 1 };
    this.writes.push(`create statefulset ${sts.metadata.name}`);
    this.statefulSets.set(sts.metadata.name ?? "", sts);
    return structuredClone(sts);
  }

  async patchStatefulSet(name: string, patch: Record<string, unknown>): Promise<void> {
    this.writes.push(`patch statefulset ${name}`);
    const sts = this.statefulSets.get(name);
    if (sts !== undefined) this.statefulSets.set(name, applyMergePatch(sts, patch) as StatefulSet);
  }

  /** Called after an orphaning delete of a PetSet: stands in for the GC and the StatefulSet controller. */
  onPetSetDeleted: (name: string) => void = () => {};

  async deletePetSetOrphaning(name: string): Promise<void> {
    this.writes.push(`delete petset ${name} orphan`);
    this.petSets.delete(name);
    this.changed();
    this.onPetSetDeleted(name);
  }

  async deleteVersion(name: string): Promise<void> {
    this.writes.push(`delete psv ${name}`);
    this.versions = this.versions.filter((v) => v.metadata.name !== name);
  }

  private patchObject<T extends Pod | Claim>(
    objects: T[],
    kind: string,
    name: string,
    metadata: Record<string, unknown>,
    resourceVersion: string,
  ): T[] {
    const index = objects.findIndex((o) => o.metadata.name === name);
    const current = objects[index];
    if (current === undefined)
      throw new PluginError("ServerError", `Error from server (NotFound): ${kind} "${name}" not found`);
    if (current.metadata.resourceVersion !== resourceVersion)
      throw new PluginError("Conflict", `Error from server (Conflict): ${kind} "${name}" has been modified`);
    this.rv += 1;
    const patched = applyMergePatch(current, {
      metadata: { ...metadata, resourceVersion: String(this.rv) },
    }) as T;
    return objects.map((o, i) => (i === index ? patched : o));
  }

  private bump(name: string): void {
    const raw = this.petSets.get(name) as { metadata: Record<string, unknown> };
    this.rv += 1;
    raw.metadata = { ...raw.metadata, resourceVersion: String(this.rv) };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
