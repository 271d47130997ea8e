/**
 * The two sides of the history comparison (bench/history-compare.ts): StatefulSets recorded by
 * kube-controller-manager as ControllerRevisions, PetSets recorded by petset as
 * PetSetVersions. Each side names its collections, its manifests (replicas 0, the same pod
 * template), the controller process to pause and measure, and how to make `count` excess
 * history objects owned by one set for the GC comparison (created directly, copies of the set's
 * first one, as the versions benchmark's GC phase does).
 */

import { AUDIT_USERS } from "./audit.js";
import type { Backend } from "./backends.js";
import { petSetManifest, petSetsPath, podTemplate, versionsPath } from "./petsets.js";
import { runPool } from "./stats.js";

export type SideName = "statefulset" | "petset";

export interface Side {
  name: SideName;
  /** The controller process: kube-controller-manager, or the petset controller child. */
  pid: number;
  /** Its user in kube-apiserver's audit log. */
  auditUser: string;
  /** Prefix of the set names of this side ("sts-", "ps-"). */
  prefix: string;
  setsPath(ns: string): string;
  historyPath(ns: string): string;
  manifest(name: string, image: string, revisionHistoryLimit?: number): unknown;
  /** `count` history objects owned by `set`, besides the ones its controller made. */
  makeHistoryCopies(b: Backend, ns: string, set: string, count: number): Promise<void>;
  /** At most this many history objects remain once the GC with limit 0 is done. */
  keptAfterGc: number;
}

const CONCURRENCY = 8;
const stsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/statefulsets`;
const revisionsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;

export function statefulSetSide(kcmPid: number): Side {
  return {
    name: "statefulset",
    pid: kcmPid,
    auditUser: AUDIT_USERS.statefulset,
    prefix: "sts-",
    setsPath: stsPath,
    historyPath: revisionsPath,
    manifest: (name, image, revisionHistoryLimit) => ({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name, labels: { bench: "true" } },
      spec: {
        replicas: 0,
        serviceName: name,
        selector: { matchLabels: { app: name } },
        ...(revisionHistoryLimit !== undefined ? { revisionHistoryLimit } : {}),
        template: podTemplate(name, image),
      },
    }),
    // Copies of the set's revision (same data and labels) at revision 0: older than the live
    // one (revision 1), so the controller keeps that one as current and update, adopts the
    // copies (controller owner, matching labels) and trims them oldest first.
    async makeHistoryCopies(b, ns, set, count) {
      type Revision = { metadata: { labels: Record<string, string> }; data: unknown };
      const list = await b.http.json<{ items: Revision[] }>(
        "GET",
        `${revisionsPath(ns)}?labelSelector=${encodeURIComponent(`app=${set}`)}`,
      );
      const real = list.items[0];
      if (!real || list.items.length !== 1)
        throw new Error(`${set}: expected one ControllerRevision, found ${list.items.length}`);
      const owner = await b.http.json<{ metadata: { uid: string } }>("GET", `${stsPath(ns)}/${set}`);
      await runPool(count, CONCURRENCY, async (i) => {
        await b.http.jsonRetry("POST", revisionsPath(ns), {
          apiVersion: "apps/v1",
          kind: "ControllerRevision",
          metadata: {
            name: `${set}-copy-${i + 1}`,
            labels: real.metadata.labels,
            ownerReferences: [
              {
                apiVersion: "apps/v1",
                kind: "StatefulSet",
                name: set,
                uid: owner.metadata.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          data: real.data,
          revision: 0,
        });
      });
    },
    keptAfterGc: 1,
  };
}

export function petSetSide(controllerPid: number): Side {
  return {
    name: "petset",
    pid: controllerPid,
    auditUser: AUDIT_USERS.petset,
    prefix: "ps-",
    setsPath: petSetsPath,
    historyPath: versionsPath,
    manifest: (name, image, revisionHistoryLimit) =>
      petSetManifest(name, {
        replicas: 0,
        image,
        ...(revisionHistoryLimit !== undefined ? { revisionHistoryLimit } : {}),
      }),
    // Copies of v1 numbered 2..count+1, owned by the PetSet (as bench/versions.ts's GC phase).
    async makeHistoryCopies(b, ns, set, count) {
      type Version = {
        apiVersion: string;
        kind: string;
        metadata: { labels: Record<string, string>; ownerReferences?: unknown };
        spec: Record<string, unknown>;
      };
      const v1 = await b.http.json<Version>("GET", `${versionsPath(ns)}/${set}-v1`);
      await runPool(count, CONCURRENCY, async (i) => {
        const n = i + 2;
        await b.http.jsonRetry("POST", versionsPath(ns), {
          apiVersion: v1.apiVersion,
          kind: v1.kind,
          metadata: {
            name: `${set}-v${n}`,
            labels: { ...v1.metadata.labels, "petset.dev/version": String(n) },
            ownerReferences: v1.metadata.ownerReferences,
          },
          spec: { ...v1.spec, version: n },
        });
      });
    },
    // The current/update version and the newest (as bench/versions.ts's GC phase).
    keptAfterGc: 3,
  };
}
