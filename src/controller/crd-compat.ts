/**
 * The installed CRDs are new enough for this controller, or it does not start.
 *
 * An older CRD schema prunes the fields it does not know from every object written through
 * it: a controller newer than its CRDs would lose what it writes (storage, node and ordinal
 * fields, rollout facts) without an error. `helm upgrade` never upgrades a chart's `crds/`,
 * so that is the easy mistake; this check makes it loud.
 *
 * Rules:
 * - hack/gen-crds.ts stamps both CRDs with the annotation `petset.dev/crd-revision`:
 *   CRD_REVISION, a number bumped whenever the schemas gain a field the controller reads or
 *   writes. A CRD at this revision or newer is accepted (schemas only grow).
 * - A CRD that is missing, has no revision (it predates the annotation) or an older one:
 *   the controller refuses to start, naming the CRD, both revisions and the fix.
 * - A CRD the controller may not read (403: RBAC without the `get` on its two CRDs that
 *   deploy/rbac.yaml grants) cannot be checked: a warning, and the controller starts.
 *
 * - The CRDs are read until the API server answers: a transient error (no answer, 429, 5xx:
 *   an API server restarting as the controller starts) is retried with backoff, never a
 *   reason to exit (chaos seed 7010: a replica started during an API server restart exited 1).
 *
 * checkCrdCompat is pure (table-tested in test/unit/controller/crd-compat.test.ts);
 * readInstalledCrds is the thin adapter, readUntilAnswered its retry.
 */
import { ApiextensionsV1Api, type KubeConfig } from "@kubernetes/client-node";
import { makeApiClientWith } from "../util/keep-alive.js";
import { statusCode } from "./api-errors.js";
import { backoffMs, isTransient } from "./hooks/transient.js";

export const CRD_REVISION_ANNOTATION = "petset.dev/crd-revision";
/**
 * The revision of the CRDs this build generates and needs. 1: the first stamped revision
 * (status subresource of PetSetVersion, storage, node and ordinal fields). 2: PetSetVersion
 * status.formatVersion (state-format.ts: an older schema would prune it). 3: PetSet
 * spec.volumeClaimUpdatePolicy and status.volumeClaimTemplates (issue 26: a pruned status field
 * would be written again on every sync).
 */
export const CRD_REVISION = 3;
export const PETSET_CRDS = ["petsets.petset.dev", "petsetversions.petset.dev"] as const;

export type InstalledCrd =
  | { name: string; state: "found"; annotations: Readonly<Record<string, string>> | undefined }
  | { name: string; state: "missing" }
  | { name: string; state: "forbidden" };

export type CrdCompat = { ok: true; warnings: string[] } | { ok: false; message: string };

const UPGRADE_HINT =
  'upgrade the CRDs first: kubectl apply --server-side --force-conflicts -f crds/ (with Helm: the chart\'s crds/; docs/operations.md, "Upgrading")';

/** Whether CRDs as installed let this controller run (`required`: the revision it needs). */
export function checkCrdCompat(
  installed: readonly InstalledCrd[],
  required: number = CRD_REVISION,
): CrdCompat {
  const refusals: string[] = [];
  const warnings: string[] = [];
  for (const crd of installed) {
    if (crd.state === "missing") {
      refusals.push(`CRD ${crd.name} is not installed`);
      continue;
    }
    if (crd.state === "forbidden") {
      warnings.push(
        `cannot read CRD ${crd.name} (forbidden), so cannot check it is at revision ${required} or newer: grant get on customresourcedefinitions ${crd.name} (deploy/rbac.yaml)`,
      );
      continue;
    }
    const raw = crd.annotations?.[CRD_REVISION_ANNOTATION];
    if (raw === undefined) {
      refusals.push(
        `CRD ${crd.name} has no ${CRD_REVISION_ANNOTATION} annotation: it is older than revision ${required}, which this controller needs`,
      );
      continue;
    }
    const revision = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(revision)) {
      refusals.push(
        `CRD ${crd.name} has an unreadable ${CRD_REVISION_ANNOTATION} annotation ${JSON.stringify(raw)}`,
      );
      continue;
    }
    if (revision < required)
      refusals.push(
        `CRD ${crd.name} is at revision ${revision}; this controller needs revision ${required} or newer`,
      );
  }
  if (refusals.length > 0)
    return {
      ok: false,
      message: `refusing to start: ${refusals.join("; ")}. Objects written through an older schema lose the fields it does not know: ${UPGRADE_HINT}`,
    };
  return { ok: true, warnings };
}

/** Reads the two CRDs (a 404 is "missing", a 403 "forbidden"; other errors throw). */
export async function readInstalledCrds(kubeConfig: KubeConfig): Promise<InstalledCrd[]> {
  // The controller's HTTP library, as every client of it: client-node's own (node-fetch) is never
  // loaded then, nor its url.parse and punycode, which Node 24 warns of on stderr.
  const api = makeApiClientWith(kubeConfig, ApiextensionsV1Api, () => {});
  return Promise.all(
    PETSET_CRDS.map(async (name): Promise<InstalledCrd> => {
      try {
        const crd = await api.readCustomResourceDefinition({ name });
        return { name, state: "found", annotations: crd.metadata?.annotations };
      } catch (err) {
        const code = statusCode(err);
        if (code === 404) return { name, state: "missing" };
        if (code === 403) return { name, state: "forbidden" };
        throw err;
      }
    }),
  );
}

/**
 * `read()` until it answers: transient errors (hooks/transient.ts) are retried after
 * `backoffMs(n)` (`onRetry` says why), any other error is thrown.
 */
export async function readUntilAnswered<T>(
  read: () => Promise<T>,
  onRetry: (err: unknown, n: number) => void,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await read();
    } catch (err) {
      if (!isTransient(err)) throw err;
      onRetry(err, n);
      await wait(backoffMs(n));
    }
  }
}

/** Thrown by the controller's start when the CRDs are too old; its message says what to do. */
export class CrdsTooOld extends Error {
  readonly reason = "CrdsTooOld";
  constructor(message: string) {
    super(message);
    this.name = "CrdsTooOld";
  }
}
