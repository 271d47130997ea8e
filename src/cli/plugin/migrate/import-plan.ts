/**
 * `adopt`, step 2 (pure): the StatefulSet's ControllerRevisions as numbered PetSetVersions,
 * and which of them still need creating on a resumed run.
 */
import {
  API_VERSION,
  type ClaimTemplate,
  Labels,
  type PetSetVersion,
  type PodTemplate,
  VERSION_KIND,
  versionName,
} from "../../../api/index.js";
import { summarizeChange } from "../../../versions/change-summary.js";
import { sameContent, type VersionContent } from "../../../versions/content.js";
import { delta } from "../../../versions/describe.js";
import { hashContent } from "../../../versions/hash.js";
import { AdoptRefusedError, MigrationAnnotations, ownedRevisions } from "./adopt-plan.js";
import type { ControllerRevision, StatefulSet } from "./objects.js";
/** The versioned content of a ControllerRevision: its template (without `$patch`) and the set's claim templates. */
export function revisionContent(
  revision: ControllerRevision,
  claimTemplates: readonly ClaimTemplate[],
  what: string,
): VersionContent {
  const data = revision.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const template = data?.spec?.template;
  if (typeof template !== "object" || template === null)
    throw new AdoptRefusedError(
      `ControllerRevision ${revision.metadata.name} of ${what} has no data.spec.template`,
    );
  const { $patch: _patch, ...rest } = template;
  const copy = structuredClone(rest) as Record<string, unknown>;
  const metadata = copy.metadata as Record<string, unknown> | undefined;
  if (metadata !== undefined) {
    delete metadata.creationTimestamp;
    if (Object.keys(metadata).length === 0) delete copy.metadata;
  }
  return { template: copy as PodTemplate, volumeClaimTemplates: structuredClone([...claimTemplates]) };
}

/**
 * The PetSetVersions to import: one per ControllerRevision the StatefulSet owns, oldest
 * first, numbered 1..k. Orphans labelled for the PetSet, so the controller adopts them as it
 * adopts versions left by `--cascade=orphan`. The newest must hold the PetSet's content
 * (else the controller would record a new version and roll every pod): refused otherwise.
 */
export function planImport(
  sts: StatefulSet,
  revisions: readonly ControllerRevision[],
  petSetManifest: Record<string, unknown>,
): PetSetVersion[] {
  const name = sts.metadata.name ?? "";
  const namespace = sts.metadata.namespace;
  const what = `statefulset "${name}"`;
  const spec = petSetManifest.spec as { template: PodTemplate; volumeClaimTemplates?: ClaimTemplate[] };
  const claimTemplates = spec.volumeClaimTemplates ?? [];
  const owned = ownedRevisions(sts, revisions);
  if (owned.length === 0)
    throw new AdoptRefusedError(
      `${what} owns no ControllerRevision (is the StatefulSet controller running?)`,
    );
  const versions: PetSetVersion[] = [];
  let previous: VersionContent | undefined;
  for (const [i, revision] of owned.entries()) {
    const number = i + 1;
    const content = revisionContent(revision, claimTemplates, what);
    const hash = hashContent(content);
    const change = delta(previous, content);
    const source = `ControllerRevision ${revision.metadata.name} (revision ${revision.revision})`;
    const summary = previous === undefined ? [] : summarizeChange(previous, content);
    versions.push({
      apiVersion: API_VERSION,
      kind: VERSION_KIND,
      metadata: {
        name: versionName(name, number),
        ...(namespace !== undefined ? { namespace } : {}),
        labels: { [Labels.petSet]: name, [Labels.version]: String(number), [Labels.hash]: hash },
        annotations: { [MigrationAnnotations.importedFrom]: revision.metadata.name ?? "" },
      },
      spec: {
        petSet: name,
        version: number,
        // The PetSet is created at generation 1 with the newest content; older ones predate it.
        generation: i === owned.length - 1 ? 1 : 0,
        hash,
        template: content.template,
        volumeClaimTemplates: content.volumeClaimTemplates,
        changeCause:
          summary.length > 0
            ? `imported from ${source}: ${summary.join("; ")}`.slice(0, 200)
            : `imported from ${source}`,
        delta: change.patch,
      },
    });
    previous = content;
  }
  const newest = owned.at(-1);
  const petSetContent = { template: spec.template, volumeClaimTemplates: claimTemplates };
  if (previous === undefined || !sameContent(previous, petSetContent))
    throw new AdoptRefusedError(
      `the newest ControllerRevision ${newest?.metadata.name} of ${what} does not hold its spec.template: the StatefulSet controller has not recorded the latest change yet; retry in a moment`,
    );
  const updateRevision = sts.status?.updateRevision;
  if (updateRevision !== undefined && updateRevision !== newest?.metadata.name)
    throw new AdoptRefusedError(
      `status.updateRevision of ${what} is ${updateRevision}, not the newest ControllerRevision ${newest?.metadata.name}: retry once the StatefulSet controller has caught up`,
    );
  return versions;
}

/** Which planned versions to create; refuses versions of that name made by something else. */
export function versionsToCreate(
  planned: readonly PetSetVersion[],
  existing: readonly PetSetVersion[],
): PetSetVersion[] {
  const byName = new Map(existing.map((v) => [v.metadata.name, v]));
  const plannedNames = new Set(planned.map((v) => v.metadata.name));
  for (const v of existing) {
    if (plannedNames.has(v.metadata.name)) continue;
    throw new AdoptRefusedError(
      `petsetversion ${v.metadata.name} is labelled ${Labels.petSet}=${v.spec.petSet} but is not one adopt imports: delete it first (kubectl delete psv ${v.metadata.name})`,
    );
  }
  const out: PetSetVersion[] = [];
  for (const v of planned) {
    const found = byName.get(v.metadata.name);
    if (found === undefined) out.push(v);
    else if (
      found.spec.hash !== v.spec.hash ||
      found.metadata.annotations?.[MigrationAnnotations.importedFrom] !==
        v.metadata.annotations?.[MigrationAnnotations.importedFrom]
    )
      throw new AdoptRefusedError(
        `petsetversion ${v.metadata.name} exists with other content (spec.hash ${found.spec.hash}, expected ${v.spec.hash}): delete it first (kubectl delete psv ${v.metadata.name})`,
      );
  }
  return out;
}
