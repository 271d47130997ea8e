/** The migration half of kubePetSetApi: apps/v1 StatefulSets and ControllerRevisions, pods, claims. */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { z } from "zod";
import { GROUP, PETSET_PLURAL, PetSetSchema, VERSION, VERSION_PLURAL } from "../../api/index.js";
import { translateApiError } from "./api-error.js";
import { PluginError } from "./errors.js";
import type { Connection } from "./kubeconfig.js";
import { ClaimSchema, ControllerRevisionSchema, PodSchema, StatefulSetSchema } from "./migrate/objects.js";
import { FIELD_MANAGER, type PetSetApi } from "./petset-api.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

type MigrationMethods = Pick<
  PetSetApi,
  | "getStatefulSet"
  | "listControllerRevisions"
  | "listPods"
  | "listClaims"
  | "createPetSet"
  | "createVersion"
  | "patchPodMetadata"
  | "patchClaimMetadata"
  | "deleteStatefulSetOrphaning"
  | "createStatefulSet"
  | "patchStatefulSet"
  | "deletePetSetOrphaning"
  | "deleteVersion"
>;

export function kubeMigrationApi({ kubeConfig, namespace }: Connection): MigrationMethods {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const statefulSets = { group: "apps", version: "v1", plural: "statefulsets", namespace };
  const deleteQuietly = async (body: () => Promise<unknown>): Promise<void> => {
    try {
      await body();
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return;
      throw translateApiError(err);
    }
  };
  const call = async <T>(body: () => Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (err) {
      throw translateApiError(err);
    }
  };
  return {
    async getStatefulSet(name) {
      try {
        const raw = await custom.getNamespacedCustomObject({ ...statefulSets, name });
        return parse(StatefulSetSchema, raw, `statefulset "${name}"`);
      } catch (err) {
        if (err instanceof ApiException && err.code === 404) return undefined;
        throw translateApiError(err);
      }
    },
    async listControllerRevisions() {
      const list = (await call(() =>
        custom.listNamespacedCustomObject({
          group: "apps",
          version: "v1",
          plural: "controllerrevisions",
          namespace,
        }),
      )) as { items?: unknown[] };
      return (list.items ?? []).map((r) => parse(ControllerRevisionSchema, r, "controllerrevision"));
    },
    async listPods() {
      const list = await call(() => core.listNamespacedPod({ namespace }));
      return list.items.map((p) => parse(PodSchema, p, `pod "${p.metadata?.name}"`));
    },
    async listClaims() {
      const list = await call(() => core.listNamespacedPersistentVolumeClaim({ namespace }));
      return list.items.map((c) => parse(ClaimSchema, c, `persistentvolumeclaim "${c.metadata?.name}"`));
    },
    async createPetSet(manifest) {
      const created = await call(() =>
        custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PETSET_PLURAL,
          namespace,
          body: manifest,
          fieldManager: FIELD_MANAGER,
        }),
      );
      return parse(PetSetSchema, created, "petset");
    },
    async createVersion(version) {
      try {
        await custom.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: VERSION_PLURAL,
          namespace,
          body: version,
          fieldManager: FIELD_MANAGER,
        });
        return true;
      } catch (err) {
        if (err instanceof ApiException && err.code === 409) return false;
        throw translateApiError(err);
      }
    },
    async patchPodMetadata(name, metadata, resourceVersion) {
      await call(() =>
        core.patchNamespacedPod(
          {
            name,
            namespace,
            body: { metadata: { ...metadata, resourceVersion } },
            fieldManager: FIELD_MANAGER,
          },
          mergePatch,
        ),
      );
    },
    async patchClaimMetadata(name, metadata, resourceVersion) {
      await call(() =>
        core.patchNamespacedPersistentVolumeClaim(
          {
            name,
            namespace,
            body: { metadata: { ...metadata, resourceVersion } },
            fieldManager: FIELD_MANAGER,
          },
          mergePatch,
        ),
      );
    },
    async deleteStatefulSetOrphaning(name, uid) {
      try {
        await apps.deleteNamespacedStatefulSet({
          name,
          namespace,
          body: { propagationPolicy: "Orphan", preconditions: { uid } },
        });
      } catch (err) {
        if (err instanceof ApiException && err.code === 404) return;
        throw translateApiError(err);
      }
    },
    async createStatefulSet(manifest) {
      const created = await call(() =>
        custom.createNamespacedCustomObject({ ...statefulSets, body: manifest, fieldManager: FIELD_MANAGER }),
      );
      return parse(StatefulSetSchema, created, "statefulset");
    },
    async patchStatefulSet(name, patch) {
      await call(() =>
        custom.patchNamespacedCustomObject(
          { ...statefulSets, name, body: patch, fieldManager: FIELD_MANAGER },
          mergePatch,
        ),
      );
    },
    async deletePetSetOrphaning(name, uid) {
      await deleteQuietly(() =>
        custom.deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PETSET_PLURAL,
          namespace,
          name,
          // In the body: sent as a query parameter beside this body, the real backend deleted
          // the pods (background propagation) in test/integration/adopt.test.ts.
          body: { propagationPolicy: "Orphan", preconditions: { uid } },
        }),
      );
    },
    async deleteVersion(name, uid) {
      await deleteQuietly(() =>
        custom.deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: VERSION_PLURAL,
          namespace,
          name,
          body: { preconditions: { uid } },
        }),
      );
    },
  };
}

function parse<T extends z.ZodType>(schema: T, object: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(object);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new PluginError(
    "ServerError",
    `${what} is not a valid object: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
  );
}
