import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { GROUP, Labels, PETSET_PLURAL, type PetSet, VERSION } from "../../api/index.js";
import { statusLine } from "../plugin/format-status.js";
import { kubePetSetApi } from "../plugin/kube-petset-api.js";
import { connect } from "../plugin/kubeconfig.js";
import type { PetSetApi } from "../plugin/petset-api.js";
import { rolloutState } from "../plugin/rollout-state.js";
import { describePodChange, type PodSnapshot, podSnapshot } from "./pod-changes.js";

/** The field manager the demo writes its manifests under: what CHANGED-BY shows for them. */
export const DEMO_FIELD_MANAGER = "petset-demo";

const serverSideApply = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);

/** A step did not reach its goal in time: the demo stops and says which. */
export class DemoTimeoutError extends Error {
  readonly reason = "Timeout";
  constructor(what: string, timeoutMs: number, last: string | undefined) {
    super(`demo: ${what} did not happen within ${timeoutMs / 1000}s${last ? ` (last seen: ${last})` : ""}`);
    this.name = "DemoTimeoutError";
  }
}

/**
 * What the demo does to the cluster and how it watches it: server-side apply of a
 * manifest, a watch of the PetSet that prints each new status line until a goal holds,
 * and a watch of the pets' pods that prints what happens to them.
 */
export class DemoCluster {
  readonly api: PetSetApi;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly pods = new Map<string, PodSnapshot>();
  private podWatch: AbortController | undefined;
  private stopped = false;

  constructor(
    private readonly kubeconfigPath: string,
    private readonly kubeConfig: KubeConfig,
    readonly namespace: string,
    private readonly observe: (line: string) => void,
  ) {
    this.api = kubePetSetApi(connect({ kubeconfig: kubeconfigPath, namespace }));
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
  }

  /** `kubectl apply --server-side` of one StatefulSet manifest, as field manager petset-demo. */
  async applyStatefulSet(manifest: Record<string, unknown>): Promise<void> {
    const name = String((manifest.metadata as { name?: unknown } | undefined)?.name ?? "");
    await this.apps.patchNamespacedStatefulSet(
      { name, namespace: this.namespace, body: manifest, fieldManager: DEMO_FIELD_MANAGER, force: true },
      serverSideApply,
    );
  }

  /** Until the StatefulSet has `replicas` Ready pods at its update revision; DemoTimeoutError after `timeoutMs`. */
  async waitForStatefulSet(name: string, replicas: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      const sts = await this.apps
        .readNamespacedStatefulSet({ name, namespace: this.namespace })
        .catch(() => undefined);
      const s = sts?.status;
      last = sts === undefined ? "not found" : `${s?.readyReplicas ?? 0} of ${replicas} ready`;
      if (s !== undefined && (s.readyReplicas ?? 0) === replicas && (s.updatedReplicas ?? 0) === replicas)
        return;
      if (Date.now() >= deadline) throw new DemoTimeoutError(`statefulset ${name} to run`, timeoutMs, last);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The uid of each pod of the StatefulSet or PetSet named `name` (label app=name), by pod name. */
  async podUids(name: string): Promise<Map<string, string>> {
    const list = await this.core.listNamespacedPod({
      namespace: this.namespace,
      labelSelector: `app=${name}`,
    });
    return new Map(list.items.map((p) => [p.metadata?.name ?? "", p.metadata?.uid ?? ""]));
  }

  /** The flags the plugin needs to reach this cluster. */
  pluginFlags(): string[] {
    return ["--kubeconfig", this.kubeconfigPath, "-n", this.namespace];
  }

  /** `kubectl apply --server-side` of one PetSet manifest, as field manager petset-demo. */
  async apply(manifest: PetSet | Record<string, unknown>): Promise<void> {
    const name = String((manifest.metadata as { name?: unknown } | undefined)?.name ?? "");
    await this.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: PETSET_PLURAL,
        namespace: this.namespace,
        name,
        body: manifest,
        fieldManager: DEMO_FIELD_MANAGER,
        force: true,
      },
      serverSideApply,
    );
  }

  /**
   * Follows the PetSet, printing its rollout line each time it changes, until `goal`
   * returns a value; DemoTimeoutError after `timeoutMs`.
   */
  async waitFor<R>(
    name: string,
    what: string,
    goal: (petSet: PetSet) => R | undefined,
    timeoutMs: number,
  ): Promise<R> {
    let last: string | undefined;
    let lastKey: string | undefined;
    const result = await this.api.watchPetSet(
      name,
      (petSet) => {
        if (petSet === undefined) return undefined;
        const state = rolloutState(petSet);
        // Ready counts move with every pod (the pod lines tell those): print progress only.
        const key = [
          state.phase,
          state.updated,
          state.currentVersion,
          state.updateVersion,
          state.reason,
        ].join();
        last = statusLine(state);
        if (key !== lastKey) this.observe(last);
        lastKey = key;
        return goal(petSet);
      },
      timeoutMs,
    );
    if (result === undefined) throw new DemoTimeoutError(what, timeoutMs, last);
    return result;
  }

  /** Starts printing what happens to the PetSet's pods (created, Ready, crash-looping, gone). */
  async followPods(petSet: string): Promise<void> {
    const labelSelector = `${Labels.petSet}=${petSet}`;
    const list = await this.core.listNamespacedPod({ namespace: this.namespace, labelSelector });
    for (const pod of list.items) this.update(pod, false);
    const resourceVersion = list.metadata?.resourceVersion ?? "";
    const watchFrom = async (rv: string): Promise<void> => {
      if (this.stopped) return;
      this.podWatch = await new Watch(this.kubeConfig).watch(
        `/api/v1/namespaces/${this.namespace}/pods`,
        { labelSelector, resourceVersion: rv, allowWatchBookmarks: true },
        (type: string, pod: V1Pod) => {
          if (type === "BOOKMARK" || type === "ERROR") return;
          this.update(pod, type === "DELETED");
        },
        () => {
          // The server ended the watch: list again so nothing is missed, then carry on.
          if (!this.stopped) void this.relist(labelSelector, watchFrom);
        },
      );
    };
    await watchFrom(resourceVersion);
  }

  private async relist(labelSelector: string, watchFrom: (rv: string) => Promise<void>): Promise<void> {
    try {
      const list = await this.core.listNamespacedPod({ namespace: this.namespace, labelSelector });
      const seen = new Set(list.items.map((p) => p.metadata?.name ?? ""));
      for (const name of [...this.pods.keys()]) {
        const gone = this.pods.get(name);
        if (!seen.has(name) && gone) this.report(gone, undefined);
      }
      for (const pod of list.items) this.update(pod, false);
      await watchFrom(list.metadata?.resourceVersion ?? "");
    } catch {
      // Only narration is lost; the steps wait on the PetSet's status, not on this watch.
    }
  }

  private update(pod: V1Pod, deleted: boolean): void {
    const next = deleted ? undefined : podSnapshot(pod);
    const name = pod.metadata?.name ?? "";
    const prev = this.pods.get(name);
    if (deleted && prev?.uid !== pod.metadata?.uid) return;
    this.report(prev, next);
  }

  private report(prev: PodSnapshot | undefined, next: PodSnapshot | undefined): void {
    const name = next?.name ?? prev?.name ?? "";
    if (next === undefined) this.pods.delete(name);
    else this.pods.set(name, next);
    for (const line of describePodChange(prev, next)) this.observe(line);
  }

  stop(): void {
    this.stopped = true;
    this.podWatch?.abort();
  }
}
