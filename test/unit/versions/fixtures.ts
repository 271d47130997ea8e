import {
  API_VERSION,
  Labels,
  PETSET_KIND,
  type PetSet,
  type PetSetVersion,
  parsePetSet,
  VERSION_KIND,
  versionName,
} from "../../../src/api/index.js";
import type { VersionContent } from "../../../src/versions/content.js";
import { hashContent } from "../../../src/versions/hash.js";

export const PETSET_UID = "uid-web-1";

/** A pod template as a user writes it: nothing defaulted. */
export function template(image = "nginx:1.27", extra: Record<string, unknown> = {}) {
  return {
    metadata: { labels: { app: "web" } },
    spec: { containers: [{ name: "app", image, ...extra }] },
  };
}

export function content(image = "nginx:1.27", extra: Record<string, unknown> = {}): VersionContent {
  return { template: template(image, extra), volumeClaimTemplates: [] };
}

export interface PetSetOptions {
  readonly image?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly annotations?: Record<string, string>;
  readonly status?: Record<string, unknown>;
  readonly spec?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
}

/** A PetSet as the cache holds it: parsed, defaulted, with identity. */
export function petSet(options: PetSetOptions = {}): PetSet {
  return parsePetSet({
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: {
      name: "web",
      namespace: "default",
      uid: options.uid ?? PETSET_UID,
      generation: options.generation ?? 1,
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...options.metadata,
    },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: template(options.image),
      ...options.spec,
    },
    ...(options.status ? { status: options.status } : {}),
  });
}

export interface VersionOptions {
  readonly content?: VersionContent;
  readonly ownerUid?: string | null;
  readonly deleting?: boolean;
  readonly name?: string;
  readonly annotations?: Record<string, string>;
}

/** Version `n` of PetSet `web`, owned by PETSET_UID unless told otherwise. */
export function version(n: number, image = `nginx:1.${n}`, options: VersionOptions = {}): PetSetVersion {
  const c = options.content ?? content(image);
  const ownerUid = options.ownerUid === undefined ? PETSET_UID : options.ownerUid;
  const hash = hashContent(c);
  const name = options.name ?? versionName("web", n);
  return {
    apiVersion: API_VERSION,
    kind: VERSION_KIND,
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: `${100 + n}`,
      labels: { [Labels.petSet]: "web", [Labels.version]: String(n), [Labels.hash]: hash },
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(ownerUid === null
        ? {}
        : {
            ownerReferences: [
              { apiVersion: API_VERSION, kind: PETSET_KIND, name: "web", uid: ownerUid, controller: true },
            ],
          }),
      ...(options.deleting ? { deletionTimestamp: "2025-01-01T00:00:00Z" } : {}),
    },
    spec: {
      petSet: "web",
      version: n,
      generation: n,
      hash,
      template: c.template,
      volumeClaimTemplates: c.volumeClaimTemplates,
      delta: [],
    },
  };
}
