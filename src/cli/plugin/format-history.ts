import type { PetSet, PetSetVersion } from "../../api/index.js";
import { age } from "./format-age.js";
import { cell, formatTable } from "./format-table.js";

/** What `history` shows: the PetSet (for its status), its versions and pod counts. */
export interface HistoryView {
  readonly petSet: PetSet;
  /** The PetSet's versions, oldest first. */
  readonly versions: readonly PetSetVersion[];
  /** Pods labelled `petset.dev/version=N`, by N. */
  readonly podsByVersion: ReadonlyMap<number, number>;
  /** Milliseconds since the epoch, for AGE. */
  readonly now: number;
}

/**
 * `current`, `update`, both, or nothing: which versions the status names. The current
 * version is what the pets ran before the rollout; the update version is where the
 * controller is taking them.
 */
export function versionRole(petSet: PetSet, version: number): string {
  const roles = [
    petSet.status?.currentVersion === version ? "current" : undefined,
    petSet.status?.updateVersion === version ? "update" : undefined,
  ].filter((r) => r !== undefined);
  return roles.join(",");
}

const HEADERS = ["VERSION", "ROLE", "GENERATION", "AGE", "CHANGED-BY", "ROLLBACK-OF", "PODS", "CHANGE-CAUSE"];

/** The history table; `wide` adds HASH. ROLE is blank for versions the status does not name. */
export function historyTable(view: HistoryView, wide = false): string {
  const headers = wide ? [...HEADERS.slice(0, -1), "HASH", "CHANGE-CAUSE"] : HEADERS;
  const rows = view.versions.map((v) => {
    const row = [
      String(v.spec.version),
      versionRole(view.petSet, v.spec.version),
      String(v.spec.generation),
      age(v.metadata.creationTimestamp, view.now),
      cell(v.spec.changedBy),
      cell(v.spec.rollbackOf),
      String(view.podsByVersion.get(v.spec.version) ?? 0),
    ];
    if (wide) row.push(v.spec.hash);
    row.push(cell(v.spec.changeCause));
    return row;
  });
  return formatTable(headers, rows);
}
