import {
  API_VERSION,
  Labels,
  type PetSet,
  type PetSetSpecInput,
  type PetSetStatus,
  type PetSetVersion,
  type PetSetVersionStatus,
  type PodTemplate,
  parsePetSet,
  parsePetSetVersion,
  VERSION_KIND,
} from "../../../../src/api/index.js";
import { canonicalJson } from "../../../../src/controller/planner/index.js";
import type { PodView } from "../../../../src/controller/planner/views.js";

export const SET = "web";
export const NS = "default";

export function template(image: string, extra: Record<string, unknown> = {}): PodTemplate {
  return {
    metadata: { labels: { app: SET } },
    spec: { containers: [{ name: "app", image }], ...extra },
  };
}

export function makePetSet(spec: Partial<PetSetSpecInput> = {}, status?: Partial<PetSetStatus>): PetSet {
  return parsePetSet({
    apiVersion: API_VERSION,
    kind: "PetSet",
    metadata: { name: SET, namespace: NS, uid: "set-uid", generation: 1 },
    spec: { selector: { matchLabels: { app: SET } }, template: template("app:1"), ...spec },
    ...(status !== undefined ? { status } : {}),
  });
}

/** A stable stand-in for the real content hash: equal content, equal hash. */
export function contentHash(content: unknown): string {
  const s = canonicalJson(content);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h.toString(16).padStart(8, "0");
}

export interface VersionOptions {
  template?: PodTemplate;
  volumeClaimTemplates?: unknown[];
  rollbackOf?: number;
  createdAt?: number;
  generation?: number;
  status?: PetSetVersionStatus;
  /** Default "1" (as read from a cache); undefined for a version created by this sync. */
  resourceVersion?: string | undefined;
}

export function makeVersion(n: number, image: string, opts: VersionOptions = {}): PetSetVersion {
  const tpl = opts.template ?? template(image);
  const vct = opts.volumeClaimTemplates ?? [];
  const hash = contentHash({ template: tpl, volumeClaimTemplates: vct });
  return parsePetSetVersion({
    apiVersion: API_VERSION,
    kind: VERSION_KIND,
    metadata: {
      name: `${SET}-v${n}`,
      namespace: NS,
      creationTimestamp: new Date(opts.createdAt ?? 0).toISOString(),
      ...("resourceVersion" in opts ? {} : { resourceVersion: "1" }),
      ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
      labels: { [Labels.petSet]: SET, [Labels.version]: String(n), [Labels.hash]: hash },
    },
    spec: {
      petSet: SET,
      version: n,
      generation: opts.generation ?? n,
      hash,
      template: tpl,
      volumeClaimTemplates: vct,
      ...(opts.rollbackOf !== undefined ? { rollbackOf: opts.rollbackOf } : {}),
    },
    ...(opts.status !== undefined ? { status: opts.status } : {}),
  });
}

export interface PodOptions {
  ready?: boolean;
  phase?: PodView["phase"];
  createdAt?: number;
  readySince?: number;
  terminating?: boolean;
  failing?: string;
  targetVersion?: number;
  name?: string;
}

/** A pod of `version` at `ordinal`; Running and Ready since t=0 unless told otherwise. */
export function makePod(ordinal: number, version: PetSetVersion, opts: PodOptions = {}): PodView {
  const ready = opts.ready ?? true;
  const pod: PodView = {
    name: opts.name ?? `${SET}-${ordinal}`,
    ordinal,
    uid: `uid-${ordinal}-${version.spec.version}`,
    resourceVersion: "1",
    labels: {
      app: SET,
      [Labels.petSet]: SET,
      [Labels.version]: String(version.spec.version),
      [Labels.hash]: version.spec.hash,
      [Labels.podIndex]: String(ordinal),
    },
    annotations: {},
    version: version.spec.version,
    hash: version.spec.hash,
    phase: opts.phase ?? (ready ? "Running" : "Pending"),
    ready,
    createdAt: opts.createdAt ?? 0,
    containers: version.spec.template.spec.containers.map((c) => ({ name: c.name, image: c.image ?? "" })),
    initContainers: [],
    restartCount: 0,
  };
  if (ready) pod.readySince = opts.readySince ?? opts.createdAt ?? 0;
  if (opts.terminating) {
    pod.deletionTimestamp = (opts.createdAt ?? 0) + 30_000;
    pod.deletionRequestedAt = opts.createdAt ?? 0;
  }
  if (opts.failing !== undefined) pod.failing = opts.failing;
  if (opts.targetVersion !== undefined) pod.targetVersion = opts.targetVersion;
  return pod;
}
