/**
 * What kube-apiserver 1.33 checks when a PersistentVolumeClaim changes, with the
 * RecoverVolumeExpansionFailure (beta, on) and VolumeAttributesClass (on in the test control
 * plane) feature gates:
 *
 * - validation (ValidatePersistentVolumeClaimUpdate): the spec is immutable except
 *   `resources.requests` and `volumeAttributesClassName` of a Bound claim and a first
 *   `volumeName`; a request below the old one is refused unless it stays above
 *   `status.capacity` (recovery from a failed expansion); `volumeAttributesClassName` cannot
 *   go back to unset or empty;
 * - admission (PersistentVolumeClaimResize, after validation): growth only for a Bound claim
 *   whose StorageClass exists and has `allowVolumeExpansion: true`, as 403 Forbidden.
 *
 * Messages and field paths are kube's; the Go struct diff kube appends to the immutability
 * message is given here as a JSON before/after (an allowed conformance difference).
 */

import { canonicalQuantity } from "../../versions/quantity.js";
import { fieldForbidden, fieldInvalid, forbidden } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { deepClone, deepEqual, isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;

const BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

/** -1, 0 or 1 as a < b, a == b, a > b; an absent or malformed quantity counts as 0. */
export function compareQuantities(a: unknown, b: unknown): number {
  const value = (q: unknown): [bigint, number] => {
    const c = typeof q === "string" || typeof q === "number" ? canonicalQuantity(q) : undefined;
    const [whole = "0", fraction = ""] = (c ?? "0").split(".");
    return [BigInt(`${whole}${fraction}`), fraction.length];
  };
  const [da, sa] = value(a);
  const [db, sb] = value(b);
  const scale = Math.max(sa, sb);
  const x = da * 10n ** BigInt(scale - sa);
  const y = db * 10n ** BigInt(scale - sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

const specOf = (o: KubeObject): Obj => (isPlainObject(o.spec) ? o.spec : {});
const requestedStorage = (o: KubeObject): unknown => {
  const r = specOf(o).resources;
  return isPlainObject(r) && isPlainObject(r.requests) ? r.requests.storage : undefined;
};
const phaseOf = (o: KubeObject): unknown => (isPlainObject(o.status) ? o.status.phase : undefined);
const capacityOf = (o: KubeObject): unknown => {
  const s = isPlainObject(o.status) ? o.status : {};
  return isPlainObject(s.capacity) ? s.capacity.storage : undefined;
};

/** kube's GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName. */
export function claimClass(o: KubeObject): string {
  const annotated = o.metadata.annotations?.[BETA_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  const name = specOf(o).storageClassName;
  return typeof name === "string" ? name : "";
}

/** The update rules of ValidatePersistentVolumeClaimUpdate (the spec rules run separately). */
export function validateClaimUpdate(pvc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const next = deepClone(specOf(pvc));
  const prev = deepClone(specOf(old));
  if (!prev.volumeName) {
    if (next.volumeName === undefined) delete prev.volumeName;
    else prev.volumeName = next.volumeName;
  }
  const oldAnn = old.metadata.annotations ?? {};
  const newAnn = pvc.metadata.annotations ?? {};
  const oldBeta = oldAnn[BETA_CLASS_ANNOTATION];
  const newBeta = newAnn[BETA_CLASS_ANNOTATION];
  const upgradeFromAnnotation =
    oldBeta !== undefined &&
    prev.storageClassName === undefined &&
    next.storageClassName === oldBeta &&
    (newBeta === undefined || newBeta === oldBeta);
  if (upgradeFromAnnotation) delete next.storageClassName;
  else {
    if ((newBeta ?? "") !== (oldBeta ?? ""))
      errs.push(
        fieldInvalid(`metadata.annotations[${BETA_CLASS_ANNOTATION}]`, newBeta ?? "", "field is immutable"),
      );
    // A claim without a class may get one once (the retroactive default class).
    if (
      typeof next.storageClassName === "string" &&
      prev.storageClassName === undefined &&
      (oldBeta === undefined || next.storageClassName === oldBeta)
    )
      delete next.storageClassName;
  }
  const bound = phaseOf(pvc) === "Bound";
  if (bound && isPlainObject(next.resources) && isPlainObject(next.resources.requests)) {
    const before = requestedStorage(old);
    if (before === undefined) delete next.resources.requests.storage;
    else next.resources.requests.storage = before;
  }
  if (bound && next.volumeAttributesClassName !== undefined && next.volumeAttributesClassName !== null) {
    if (prev.volumeAttributesClassName === undefined) delete next.volumeAttributesClassName;
    else next.volumeAttributesClassName = prev.volumeAttributesClassName;
  }
  if (!deepEqual(next, prev))
    errs.push(
      fieldForbidden(
        "spec",
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${specDiff(prev, next)}`,
      ),
    );
  if (compareQuantities(requestedStorage(pvc), requestedStorage(old)) < 0) {
    if (compareQuantities(requestedStorage(pvc), capacityOf(old)) <= 0)
      errs.push(
        fieldForbidden("spec.resources.requests.storage", "field can not be less than status.capacity"),
      );
  }
  const mode = specOf(pvc).volumeMode;
  if (mode !== specOf(old).volumeMode) errs.push(fieldInvalid("volumeMode", mode, "field is immutable"));
  const vacNew = specOf(pvc).volumeAttributesClassName;
  const vacOld = specOf(old).volumeAttributesClassName;
  if (vacOld !== undefined && vacOld !== null && vacNew !== vacOld) {
    if (vacNew === undefined || vacNew === null)
      errs.push(
        fieldForbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"),
      );
    else if (vacNew === "")
      errs.push(
        fieldForbidden(
          "spec.volumeAttributesClassName",
          "update from non-nil value to an empty string is forbidden",
        ),
      );
  }
  return errs;
}

/** The changed top-level spec fields, old and new, as JSON lines (kube prints a Go diff here). */
function specDiff(prev: Obj, next: Obj): string {
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort();
  const lines: string[] = [];
  for (const k of keys)
    if (!deepEqual(prev[k], next[k]))
      lines.push(
        `-\t${k}: ${JSON.stringify(prev[k] ?? null)}`,
        `+\t${k}: ${JSON.stringify(next[k] ?? null)}`,
      );
  return lines.join("\n");
}

/**
 * The PersistentVolumeClaimResize admission plugin: refuses growth of a claim that is not
 * Bound, or whose class (unchanged, existing) does not allow expansion. Throws 403.
 */
export function admitClaimResize(
  pvc: KubeObject,
  old: KubeObject,
  allowsExpansion: (className: string) => boolean,
): void {
  if (compareQuantities(requestedStorage(pvc), requestedStorage(old)) <= 0) return;
  const name = pvc.metadata.name ?? "";
  const refuse = (message: string) =>
    forbidden({ group: "", resource: "persistentvolumeclaims" }, name, message);
  if (phaseOf(old) !== "Bound") throw refuse("Only bound persistent volume claims can be expanded");
  const cls = claimClass(pvc);
  const oldCls = claimClass(old);
  if (cls === "" || oldCls === "" || cls !== oldCls || !allowsExpansion(cls))
    throw refuse(
      "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize",
    );
}
