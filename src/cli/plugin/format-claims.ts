/**
 * Claims follow versions (docs/volumes.md) in the plugin: what a version change does to the
 * pets' claims (`diff`, `history --version`), and where the claims stand (`status`). The words
 * follow the controller's rules (src/controller/planner/claim-updates.ts): under InPlace a
 * growth, labels, annotations and volumeAttributesClassName follow; a shrink, a class or
 * access-mode change is refused; under OnClaimDelete only claims created later change.
 */
import type { ClaimTemplate, PetSetStatus } from "../../api/index.js";
import { storageBytes, templateFacts } from "../../controller/planner/claim-template.js";
import { canonicalJson } from "../../controller/planner/version-index.js";

export type ClaimPolicy = "OnClaimDelete" | "InPlace";

/** One line per claim template that differs between two versions' contents. */
export function claimChanges(
  from: readonly ClaimTemplate[],
  to: readonly ClaimTemplate[],
  policy: ClaimPolicy,
): string[] {
  const inPlace = policy === "InPlace";
  const lines: string[] = [];
  const before = new Map(from.map((t) => [t.metadata.name, templateFacts(t)]));
  for (const t of to) {
    const b = before.get(t.metadata.name);
    const a = templateFacts(t);
    if (b === undefined) {
      lines.push(
        `claim ${a.name}: added: each pet's claim is created when it moves to this version, and its new pod mounts it`,
      );
      continue;
    }
    const changes: string[] = [];
    let refused: string | undefined;
    const was = storageBytes(b.request);
    const now = storageBytes(a.request);
    if (b.request !== a.request && !(was !== undefined && was === now)) {
      changes.push(`storage ${b.request ?? "unset"} -> ${a.request ?? "unset"}`);
      if (was !== undefined && now !== undefined && now < was) refused = "a claim cannot shrink";
    }
    if (b.storageClassName !== a.storageClassName) {
      changes.push(`storageClassName ${b.storageClassName ?? "unset"} -> ${a.storageClassName ?? "unset"}`);
      refused ??= "a claim's class cannot change";
    }
    if (
      canonicalJson([...(b.accessModes ?? [])].sort()) !== canonicalJson([...(a.accessModes ?? [])].sort())
    ) {
      changes.push(
        `accessModes ${(b.accessModes ?? []).join(",") || "unset"} -> ${(a.accessModes ?? []).join(",") || "unset"}`,
      );
      refused ??= "a claim's access modes cannot change";
    }
    if (b.volumeAttributesClassName !== a.volumeAttributesClassName)
      changes.push(
        `volumeAttributesClassName ${b.volumeAttributesClassName ?? "unset"} -> ${a.volumeAttributesClassName ?? "unset"}`,
      );
    if (canonicalJson(b.labels) !== canonicalJson(a.labels)) changes.push("labels");
    if (canonicalJson(b.annotations) !== canonicalJson(a.annotations)) changes.push("annotations");
    if (changes.length === 0) continue;
    const effect = !inPlace
      ? "applies to claims created from now on (volumeClaimUpdatePolicy OnClaimDelete)"
      : refused !== undefined
        ? `refused under InPlace (${refused}): a rollback keeps claims larger; else kubectl petset replace POD --claims recreate`
        : "existing claims follow as each pet moves (InPlace)";
    lines.push(`claim ${a.name}: ${changes.join(", ")}: ${effect}`);
  }
  const names = new Set(to.map((t) => t.metadata.name));
  for (const name of before.keys())
    if (!names.has(name)) lines.push(`claim ${name}: removed: claims are kept, new pods stop mounting them`);
  return lines;
}

/** `claims data: 3/3 compatible, 0 updating, 0 oversized, 6Gi`, one line per claim template. */
export function claimStatusLines(status: PetSetStatus | undefined, desired: number): string[] {
  return (status?.volumeClaimTemplates ?? []).map((c) => {
    const oversized =
      c.overSizedReplicas > 0
        ? `, ${c.overSizedReplicas} oversized (larger than the template: never shrunk)`
        : "";
    const total = c.totalCapacity !== undefined ? `, total ${c.totalCapacity}` : "";
    return `claims ${c.name}: ${c.compatibleReplicas}/${desired} compatible, ${c.updatingReplicas} resizing${oversized}${total}`;
  });
}
