/**
 * When a set of the history comparison (bench/history-compare.ts) has recorded a template
 * change, read from plain objects: a StatefulSet's status names ControllerRevisions
 * (updateRevision, currentRevision), a PetSet's numbers PetSetVersions (updateVersion,
 * lastCompleteVersion). With replicas 0 a controller that recorded the change moves both to
 * the new history object at once. Pure functions, table-tested in
 * test/unit/bench/history-status.test.ts.
 */

export interface SetObject {
  metadata: { name: string; generation?: number };
  status?: {
    observedGeneration?: number;
    currentRevision?: string;
    updateRevision?: string;
    currentVersion?: number;
    updateVersion?: number;
    lastCompleteVersion?: number;
  };
}

export interface HistoryObject {
  metadata: {
    name: string;
    ownerReferences?: Array<{ name: string; kind: string }>;
  };
  /** ControllerRevision */
  revision?: number;
  /** PetSetVersion */
  spec?: { petSet?: string; version?: number; generation?: number };
}

/** What a set's status says its update history object is: a name or a number (undefined: none yet). */
export function updateMarker(o: SetObject): string | undefined {
  const s = o.status ?? {};
  if (s.updateVersion !== undefined) return `v${s.updateVersion}`;
  return s.updateRevision;
}

/**
 * The controller has caught up with the set's spec: it saw the latest generation and its
 * update history object is rolled out (StatefulSet: currentRevision; PetSet:
 * lastCompleteVersion; replicas 0: nothing left to roll).
 */
export function settled(o: SetObject): boolean {
  const s = o.status ?? {};
  // A PetSet of 0 pets keeps currentVersion where it was (no pet ran the new version); its
  // lastCompleteVersion says the rollout of the update version is complete.
  const complete = s.lastCompleteVersion ?? s.currentVersion;
  const current =
    s.updateVersion !== undefined ? (complete === undefined ? undefined : `v${complete}`) : s.currentRevision;
  const update = updateMarker(o);
  return (
    update !== undefined &&
    current === update &&
    (s.observedGeneration ?? 0) >= (o.metadata.generation ?? Number.POSITIVE_INFINITY)
  );
}

/**
 * The set recorded the change written at `generation`: its status observed that generation,
 * names an update history object other than `previousUpdate` (the one before the change),
 * and that one is rolled out.
 */
export function caughtUp(o: SetObject, generation: number, previousUpdate: string | undefined): boolean {
  const s = o.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= generation &&
    settled({ ...o, metadata: { ...o.metadata, generation } }) &&
    updateMarker(o) !== previousUpdate
  );
}

/** The set a history object belongs to: its controller owner, else the PetSetVersion's spec.petSet. */
export function historyOwner(h: HistoryObject): string | undefined {
  const owner = h.metadata.ownerReferences?.find((r) => r.kind === "StatefulSet" || r.kind === "PetSet");
  return owner?.name ?? h.spec?.petSet;
}
