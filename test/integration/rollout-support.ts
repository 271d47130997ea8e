/**
 * Shared set-up of the rollout-*.test.ts files: a cluster from the fixture, a namespace per
 * file, the real controller in-process, and what a user does and sees (PetSets written with
 * client-node, pods, claims, versions, status, Events read back).
 */
import {
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from "@kubernetes/client-node";
import { expect } from "vitest";
import {
  API_VERSION,
  type Condition,
  ConditionTypes,
  GROUP,
  Labels,
  PETSET_KIND,
  PETSET_PLURAL,
  type PetSet,
  type PetSetVersion,
  parsePetSet,
  parsePetSetVersion,
  VERSION,
  VERSION_PLURAL,
} from "../../src/api/index.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";
import { type ControllerHandle, startController } from "../support/controller.js";
import { type InvariantMonitor, startInvariantMonitor } from "../support/invariant-monitor.js";

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };
const psv = { group: GROUP, version: VERSION, plural: VERSION_PLURAL };

/** Real backend: kwok, a real scheduler and a loaded 2-core machine; embedded: milliseconds. */
export const SLOW_BACKEND = (process.env.PETSET_TEST_BACKEND ?? "embedded") !== "embedded";
export const WAIT_MS = SLOW_BACKEND ? 90_000 : 30_000;
export const TEST_MS = SLOW_BACKEND ? 240_000 : 90_000;

export interface PetSetOptions {
  replicas?: number;
  image?: string;
  podManagementPolicy?: "OrderedReady" | "Parallel";
  serviceName?: string;
  ordinalsStart?: number;
  claims?: string[];
  spec?: Record<string, unknown>;
  rollingUpdate?: Record<string, unknown>;
  updateStrategyType?: "RollingUpdate" | "OnDelete" | "External";
}

/** A PetSet manifest as a user writes it: app container, optional claims. */
export function petSetManifest(name: string, o: PetSetOptions = {}): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: { name },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      ...(o.serviceName !== undefined ? { serviceName: o.serviceName } : {}),
      ...(o.podManagementPolicy !== undefined ? { podManagementPolicy: o.podManagementPolicy } : {}),
      ...(o.ordinalsStart !== undefined ? { ordinals: { start: o.ordinalsStart } } : {}),
      updateStrategy: {
        type: o.updateStrategyType ?? "RollingUpdate",
        ...(o.rollingUpdate !== undefined ? { rollingUpdate: o.rollingUpdate } : {}),
      },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: "app", image: o.image ?? "nginx:1.26" }],
        },
      },
      volumeClaimTemplates: (o.claims ?? []).map((c) => ({
        metadata: { name: c },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      })),
      ...o.spec,
    },
  };
}

export interface RolloutEnv {
  cluster: TestCluster;
  namespace: string;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** The in-process controller, unless the file runs its own (`controller: false`). */
  controller: ControllerHandle | undefined;
  stop(): Promise<void>;
}

export async function startRolloutEnv(
  prefix: string,
  opts: { controller?: boolean } = {},
): Promise<RolloutEnv> {
  const cluster = await startTestCluster();
  const namespace = await cluster.namespace(prefix);
  const controller = opts.controller === false ? undefined : await startController(cluster, namespace);
  return {
    cluster,
    namespace,
    core: cluster.kubeConfig.makeApiClient(CoreV1Api),
    custom: cluster.kubeConfig.makeApiClient(CustomObjectsApi),
    controller,
    async stop() {
      await controller?.stop();
      await cluster.stop();
    },
  };
}

export function monitor(env: RolloutEnv, name: string): Promise<InvariantMonitor> {
  return startInvariantMonitor({
    kubeConfig: env.cluster.kubeConfig,
    namespace: env.namespace,
    petSet: name,
  });
}

/** Stops the monitor and fails the test with every violation it recorded. */
export async function expectNoViolations(m: InvariantMonitor): Promise<void> {
  const violations = await m.stop();
  expect(violations.map((v) => `${v.at} ${v.rule}: ${v.message}`)).toEqual([]);
}

export async function createPetSet(env: RolloutEnv, body: Record<string, unknown>): Promise<void> {
  await env.custom.createNamespacedCustomObject({ ...ps, namespace: env.namespace, body });
}

export async function patchPetSet(env: RolloutEnv, name: string, body: Record<string, unknown>) {
  await env.custom.patchNamespacedCustomObject({ ...ps, namespace: env.namespace, name, body }, merge);
}

export const setImage = (env: RolloutEnv, name: string, image: string) =>
  patchPetSet(env, name, {
    spec: { template: { spec: { containers: [{ name: "app", image }] } } },
  });

export async function getPetSet(env: RolloutEnv, name: string): Promise<PetSet> {
  return parsePetSet(await env.custom.getNamespacedCustomObject({ ...ps, namespace: env.namespace, name }));
}

export async function listPods(env: RolloutEnv, name: string): Promise<V1Pod[]> {
  const list = await env.core.listNamespacedPod({
    namespace: env.namespace,
    labelSelector: `${Labels.petSet}=${name}`,
  });
  return list.items.sort((a, b) => ordinal(a) - ordinal(b));
}

export async function listClaims(env: RolloutEnv): Promise<V1PersistentVolumeClaim[]> {
  return (await env.core.listNamespacedPersistentVolumeClaim({ namespace: env.namespace })).items;
}

export async function listVersions(env: RolloutEnv, name: string): Promise<PetSetVersion[]> {
  const list = (await env.custom.listNamespacedCustomObject({
    ...psv,
    namespace: env.namespace,
    labelSelector: `${Labels.petSet}=${name}`,
  })) as { items: unknown[] };
  return list.items.map(parsePetSetVersion).sort((a, b) => a.spec.version - b.spec.version);
}

/** Events about `object` (a PetSet or pod name), oldest first. */
export async function eventsFor(env: RolloutEnv, object: string): Promise<CoreV1Event[]> {
  const list = await env.core.listNamespacedEvent({ namespace: env.namespace });
  return list.items.filter((e) => e.involvedObject.name === object);
}

export async function expectEvent(env: RolloutEnv, object: string, reason: string, message?: RegExp) {
  return eventually(
    `Event ${reason} on ${object}`,
    async () =>
      (await eventsFor(env, object)).find(
        (e) => e.reason === reason && (message === undefined || message.test(e.message ?? "")),
      ),
    WAIT_MS,
  );
}

export function ordinal(pod: V1Pod): number {
  return Number(pod.metadata?.labels?.[Labels.podIndex] ?? -1);
}

export const versionOf = (pod: V1Pod) => Number(pod.metadata?.labels?.[Labels.version]);
export const isReady = (pod: V1Pod) =>
  pod.metadata?.deletionTimestamp === undefined &&
  pod.status?.phase === "Running" &&
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

export function condition(p: PetSet, type: string): Condition | undefined {
  return p.status?.conditions.find((c) => c.type === type);
}

/**
 * Waits until every pet runs `version`'s content (label), is Ready, the status says so and
 * Progressing is RolloutComplete for the PetSet's current generation.
 */
export async function waitRolledOut(
  env: RolloutEnv,
  name: string,
  version: number,
  timeoutMs = WAIT_MS,
): Promise<PetSet> {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name} rolled out to version ${version}`,
      async () => {
        const p = await getPetSet(env, name);
        const pods = await listPods(env, name);
        const progressing = condition(p, ConditionTypes.progressing);
        const ok =
          p.status?.observedGeneration === p.metadata.generation &&
          p.status?.updateVersion === version &&
          p.status?.currentVersion === version &&
          p.status?.readyReplicas === p.spec.replicas &&
          progressing?.reason === "RolloutComplete" &&
          pods.length === p.spec.replicas &&
          pods.every((pod) => isReady(pod) && versionOf(pod) === version);
        return ok ? p : undefined;
      },
      timeoutMs,
    ),
  );
}

/** On failure, adds what the user would look at: status, conditions, pods, recent Events. */
export async function withDiagnostics<T>(env: RolloutEnv, name: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    const p = await getPetSet(env, name).catch(() => undefined);
    const pods = await listPods(env, name).catch(() => []);
    const events = await eventsFor(env, name).catch(() => []);
    const lines = [
      `status: ${JSON.stringify(p?.status)}`,
      `generation: ${p?.metadata.generation}`,
      ...pods.map(
        (pod) =>
          `pod ${pod.metadata?.name} v${versionOf(pod)} ${pod.status?.phase} ready=${isReady(pod)} deleting=${pod.metadata?.deletionTimestamp !== undefined} target=${pod.metadata?.annotations?.["petset.dev/target-version"]}`,
      ),
      ...events.slice(-15).map((e) => `event ${e.type} ${e.reason}: ${e.message}`),
    ];
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${lines.join("\n")}`);
  }
}

/** Version numbers are unique, start at 1, and names match numbers. */
export function expectWellFormedHistory(versions: PetSetVersion[], name: string): void {
  const numbers = versions.map((v) => v.spec.version);
  expect(new Set(numbers).size).toBe(numbers.length);
  for (const v of versions) {
    expect(v.metadata.name).toBe(`${name}-v${v.spec.version}`);
    expect(v.metadata.labels?.[Labels.version]).toBe(String(v.spec.version));
  }
}
