import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { z } from "zod";
import {
  GROUP,
  Labels,
  PETSET_PLURAL,
  PetSetSchema,
  type PetSetVersion,
  PetSetVersionSchema,
  VERSION,
  VERSION_PLURAL,
} from "../../api/index.js";
import { translateApiError } from "./api-error.js";
import { NoPetSetApiError, PetSetNotFoundError, PluginError } from "./errors.js";
import { kubeMigrationApi } from "./kube-migration-api.js";
import type { Connection } from "./kubeconfig.js";
import { watchUntil } from "./list-watch.js";
import { FIELD_MANAGER, type PetSetApi } from "./petset-api.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions("Content-Type", PatchStrategy.JsonPatch);

/** PetSetApi over client-node: CustomObjectsApi for PetSets and versions, CoreV1Api for pods. */
export function kubePetSetApi({ kubeConfig, namespace }: Connection): PetSetApi {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const petsets = { group: GROUP, version: VERSION, plural: PETSET_PLURAL, namespace };
  const versions = { group: GROUP, version: VERSION, plural: VERSION_PLURAL, namespace };
  const basePath = `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}`;
  const selectorFor = (name: string) => `${Labels.petSet}=${name}`;
  const notFound = (name: string) => ({ petSet: name, namespace });

  const getRaw = async (name: string): Promise<unknown> => {
    try {
      return await custom.getNamespacedCustomObject({ ...petsets, name });
    } catch (err) {
      const error = translateApiError(err, notFound(name));
      throw error instanceof PetSetNotFoundError ? await explainNotFound(name, err) : error;
    }
  };
  /** Lists what the namespace has instead; a 404 on the list means there is no PetSet API. */
  const listNames = async (): Promise<string[]> => {
    const list = (await custom.listNamespacedCustomObject({ ...petsets })) as {
      items?: Array<{ metadata?: { name?: string } }>;
    };
    return (list.items ?? []).flatMap((i) => (i.metadata?.name ? [i.metadata.name] : []));
  };
  const explainNotFound = async (name: string, cause: unknown): Promise<PluginError> => {
    try {
      return new PetSetNotFoundError(name, namespace, cause, await listNames());
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return new NoPetSetApiError(err);
      return new PetSetNotFoundError(name, namespace, cause);
    }
  };
  const listVersionsRaw = async (name: string) => {
    try {
      const list = (await custom.listNamespacedCustomObject({
        ...versions,
        labelSelector: selectorFor(name),
      })) as {
        items?: unknown[];
        metadata?: { resourceVersion?: string };
      };
      return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? "" };
    } catch (err) {
      throw translateApiError(err);
    }
  };

  return {
    namespace,
    async getPetSet(name) {
      return parse(PetSetSchema, await getRaw(name), `petset "${name}"`);
    },
    async listPetSetNames() {
      try {
        return await listNames();
      } catch (err) {
        throw translateApiError(err);
      }
    },
    async listVersions(name) {
      const { items } = await listVersionsRaw(name);
      return items.map((item) => parseVersion(item));
    },
    async podsByVersion(name) {
      try {
        const pods = await core.listNamespacedPod({ namespace, labelSelector: selectorFor(name) });
        const counts = new Map<number, number>();
        for (const pod of pods.items) {
          const label = pod.metadata?.labels?.[Labels.version];
          if (label === undefined || !/^[0-9]+$/.test(label)) continue;
          counts.set(Number(label), (counts.get(Number(label)) ?? 0) + 1);
        }
        return counts;
      } catch (err) {
        throw translateApiError(err);
      }
    },
    async patchPetSet(name, patch, options = {}) {
      const metadata = { ...(patch.metadata as Record<string, unknown> | undefined) };
      if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
      const body = Object.keys(metadata).length > 0 ? { ...patch, metadata } : patch;
      try {
        const result = await custom.patchNamespacedCustomObject(
          {
            ...petsets,
            name,
            body,
            fieldManager: FIELD_MANAGER,
            ...(options.dryRun ? { dryRun: "All" } : {}),
          },
          mergePatch,
        );
        return parse(PetSetSchema, result, `petset "${name}"`);
      } catch (err) {
        const error = translateApiError(err, notFound(name));
        throw error instanceof PetSetNotFoundError ? await explainNotFound(name, err) : error;
      }
    },
    async jsonPatchPetSet(name, ops, options = {}) {
      try {
        const result = await custom.patchNamespacedCustomObject(
          {
            ...petsets,
            name,
            body: ops,
            fieldManager: FIELD_MANAGER,
            ...(options.dryRun ? { dryRun: "All" } : {}),
          },
          jsonPatch,
        );
        return parse(PetSetSchema, result, `petset "${name}"`);
      } catch (err) {
        const error = translateApiError(err, notFound(name));
        throw error instanceof PetSetNotFoundError ? await explainNotFound(name, err) : error;
      }
    },
    watchPetSet(name, until, timeoutMs) {
      const source = {
        path: `${basePath}/${PETSET_PLURAL}`,
        fieldSelector: `metadata.name=${name}`,
        list: async () => {
          const raw = await getRaw(name);
          const rv = (raw as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? "";
          return { items: [raw], resourceVersion: rv };
        },
      };
      return watchUntil(
        kubeConfig,
        source,
        (items) => {
          const raw = items.find((i) => (i as { metadata?: { name?: string } }).metadata?.name === name);
          return until(raw === undefined ? undefined : parse(PetSetSchema, raw, `petset "${name}"`));
        },
        timeoutMs,
      );
    },
    watchVersions(name, until, timeoutMs) {
      const source = {
        path: `${basePath}/${VERSION_PLURAL}`,
        labelSelector: selectorFor(name),
        list: () => listVersionsRaw(name),
      };
      return watchUntil(kubeConfig, source, (items) => until(items.map(parseVersion)), timeoutMs);
    },
    ...kubeMigrationApi({ kubeConfig, namespace }),
  } satisfies PetSetApi;
}

function parseVersion(item: unknown): PetSetVersion {
  const name = (item as { metadata?: { name?: string } }).metadata?.name ?? "?";
  return parse(PetSetVersionSchema, item, `petsetversion "${name}"`);
}

/** Parses an API object, naming it and the first bad field when it does not fit the schema. */
function parse<T extends z.ZodType>(schema: T, object: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(object);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") ?? "";
  throw new PluginError(
    "ServerError",
    `${what} is not a valid object: ${field}: ${issue?.message ?? "invalid"}`,
  );
}
