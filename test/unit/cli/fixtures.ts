/** Hand-built PetSets and versions for the plugin's unit tests, at a fixed clock. */
import {
  API_VERSION,
  Labels,
  PETSET_KIND,
  type PetSet,
  type PetSetVersion,
  parsePetSet,
  parsePetSetVersion,
  VERSION_KIND,
  versionName,
} from "../../../src/api/index.js";
import { hashContent } from "../../../src/versions/hash.js";

/** 2025-06-01T12:00:00Z: "now" for every AGE in the golden files. */
export const NOW = Date.parse("2025-06-01T12:00:00Z");
export const PETSET_UID = "0b9c3f5e-1111-4c1e-9d7a-6b1d2f3a4b5c";

export function template(image: string, extra: Record<string, string> = {}) {
  return {
    metadata: { labels: { app: "web" }, ...(Object.keys(extra).length > 0 ? { annotations: extra } : {}) },
    spec: { containers: [{ name: "app", image, ports: [{ containerPort: 80, name: "http" }] }] },
  };
}

export function petSet(
  overrides: {
    image?: string;
    replicas?: number;
    status?: Record<string, unknown>;
    paused?: boolean;
    generation?: number;
    partition?: number;
    annotations?: Record<string, string>;
  } = {},
): PetSet {
  return parsePetSet({
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: {
      name: "web",
      namespace: "default",
      uid: PETSET_UID,
      resourceVersion: "100",
      generation: overrides.generation ?? 5,
      creationTimestamp: "2025-05-20T12:00:00Z",
    },
    spec: {
      replicas: overrides.replicas ?? 3,
      selector: { matchLabels: { app: "web" } },
      template: template(overrides.image ?? "nginx:1.27", overrides.annotations),
      paused: overrides.paused ?? false,
      ...(overrides.partition !== undefined
        ? { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: overrides.partition } } }
        : {}),
    },
    status: overrides.status ?? {
      observedGeneration: 5,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      currentVersion: 3,
      updateVersion: 3,
    },
  });
}

export interface VersionInput {
  n: number;
  image: string;
  generation?: number;
  created: string;
  changedBy?: string;
  changeCause?: string;
  rollbackOf?: number;
  owner?: string;
  delta?: PetSetVersion["spec"]["delta"];
}

export function version(input: VersionInput): PetSetVersion {
  const content = { template: template(input.image), volumeClaimTemplates: [] };
  const hash = hashContent(content);
  return parsePetSetVersion({
    apiVersion: API_VERSION,
    kind: VERSION_KIND,
    metadata: {
      name: versionName("web", input.n),
      namespace: "default",
      creationTimestamp: input.created,
      labels: { [Labels.petSet]: "web", [Labels.version]: String(input.n), [Labels.hash]: hash },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: PETSET_KIND,
          name: "web",
          uid: input.owner ?? PETSET_UID,
          controller: true,
        },
      ],
    },
    spec: {
      petSet: "web",
      version: input.n,
      generation: input.generation ?? input.n,
      hash,
      ...content,
      ...(input.changedBy ? { changedBy: input.changedBy } : {}),
      ...(input.changeCause ? { changeCause: input.changeCause } : {}),
      ...(input.rollbackOf ? { rollbackOf: input.rollbackOf } : {}),
      delta: input.delta ?? [],
    },
  });
}

/** Four versions: 1.25, 1.26, 1.27, then a rollback to 1.26 in flight (update 4, current 3). */
export function history(): PetSetVersion[] {
  return [
    version({
      n: 1,
      image: "nginx:1.25",
      created: "2025-05-20T12:00:00Z",
      changedBy: "kubectl-client-side-apply",
      changeCause: "initial version",
    }),
    version({
      n: 2,
      image: "nginx:1.26",
      generation: 2,
      created: "2025-05-30T09:30:00Z",
      changedBy: "kubectl-client-side-apply",
      changeCause: "image app: nginx:1.25 -> nginx:1.26",
      delta: [{ op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.26" }],
    }),
    version({
      n: 3,
      image: "nginx:1.27",
      generation: 4,
      created: "2025-06-01T09:00:00Z",
      changedBy: "argocd-controller",
      changeCause: "image app: nginx:1.26 -> nginx:1.27",
      delta: [{ op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.27" }],
    }),
    version({
      n: 4,
      image: "nginx:1.26",
      generation: 5,
      created: "2025-06-01T11:58:30Z",
      changedBy: "kubectl-petset",
      changeCause: "rollback to version 2",
      rollbackOf: 2,
      delta: [{ op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.26" }],
    }),
  ];
}
