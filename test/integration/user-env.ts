/**
 * What versions.test.ts and gitops.test.ts share: a namespace with its own in-process
 * controller, manifests as a user keeps them in Git, and the reads and waits of a user at a
 * terminal (`kubectl apply`, `kubectl get`), each wait on a condition, never a sleep.
 */
import { CoreV1Api, CustomObjectsApi, type KubernetesObject, type V1Pod } from "@kubernetes/client-node";
import { stringify } from "yaml";
import {
  GROUP,
  Labels,
  PETSET_PLURAL,
  type PetSet,
  type PetSetVersion,
  parsePetSet,
  parsePetSetVersion,
  VERSION,
  VERSION_PLURAL,
} from "../../src/api/index.js";
import { eventually, type KubectlResult, type TestCluster } from "../support/cluster.js";
import { type ControllerHandle, startController } from "../support/controller.js";

export type ApplyMode = "client-side" | "server-side";

/** The field manager each apply mode writes under: what `changedBy` must say. */
export const MANAGER: Record<ApplyMode, string> = {
  "client-side": "kubectl-client-side-apply",
  "server-side": "kubectl",
};

/** Generous: the machine is shared, and on the real backend kwok plays the kubelet. */
export const WAIT_MS = 90_000;

export interface WebOptions {
  image: string;
  replicas?: number;
  annotations?: Record<string, string>;
  /** Further spec fields (updateStrategy, revisionHistoryLimit, ...). */
  spec?: Record<string, unknown>;
}

/** A PetSet manifest as a user keeps it in Git: only the fields they care about. */
export function manifest(name: string, o: WebOptions): string {
  return stringify({
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      replicas: o.replicas ?? 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: o.image, ports: [{ containerPort: 80 }] }] },
      },
      ...o.spec,
    },
  });
}

const running = new Set<ControllerHandle>();

/** Stops every controller an Env started (afterEach). */
export async function stopControllers(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(all.map((c) => c.stop()));
}

/** One namespace with its own controller, and what a test reads and writes in it. */
export class Env {
  private controller: ControllerHandle | undefined;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  private constructor(
    readonly cluster: TestCluster,
    readonly ns: string,
  ) {
    this.custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  }

  static async start(cluster: TestCluster, prefix: string): Promise<Env> {
    const env = new Env(cluster, await cluster.namespace(prefix));
    await env.startController();
    return env;
  }

  async startController(): Promise<void> {
    const handle = await startController(this.cluster, this.ns);
    running.add(handle);
    this.controller = handle;
  }

  /** Stops the controller as a rolling restart does: running syncs finish, the Lease is released. */
  async stopController(): Promise<void> {
    const c = this.controller;
    this.controller = undefined;
    if (!c) return;
    running.delete(c);
    await c.stop();
  }

  /** Stops the controller as a crash would (lease not released): the next one waits for it. */
  async killController(): Promise<void> {
    const c = this.controller;
    this.controller = undefined;
    if (!c) return;
    running.delete(c);
    await c.kill();
  }

  kubectl(args: string[], opts: { input?: string; allowFail?: boolean } = {}): Promise<KubectlResult> {
    return this.cluster.kubectl([...args, "-n", this.ns], opts);
  }

  async apply(text: string, mode: ApplyMode = "client-side"): Promise<string> {
    const flags = mode === "server-side" ? ["--server-side"] : [];
    return (await this.kubectl(["apply", ...flags, "-f", "-"], { input: text })).stdout.trim();
  }

  async petSet(name: string): Promise<PetSet> {
    const ref = { group: GROUP, version: VERSION, plural: PETSET_PLURAL, namespace: this.ns, name };
    return parsePetSet(await this.custom.getNamespacedCustomObject(ref));
  }

  /** The objects labelled for the PetSet (whoever owns them), as the API returns them. */
  async rawVersions(name: string): Promise<KubernetesObject[]> {
    const list = (await this.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: VERSION_PLURAL,
      namespace: this.ns,
      labelSelector: `${Labels.petSet}=${name}`,
    })) as { items: KubernetesObject[] };
    return list.items;
  }

  /** The versions labelled for the PetSet, by number. */
  async versions(name: string): Promise<PetSetVersion[]> {
    return (await this.rawVersions(name))
      .map(parsePetSetVersion)
      .sort((a, b) => a.spec.version - b.spec.version);
  }

  async numbers(name: string): Promise<number[]> {
    return (await this.versions(name)).map((v) => v.spec.version);
  }

  async pods(name: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({
      namespace: this.ns,
      labelSelector: `${Labels.petSet}=${name}`,
    });
    return list.items.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  }

  async podUids(name: string): Promise<Record<string, string>> {
    return Object.fromEntries((await this.pods(name)).map((p) => [p.metadata?.name, p.metadata?.uid]));
  }

  waitVersion(name: string, n: number): Promise<PetSetVersion> {
    return eventually(
      `${this.ns}/${name}-v${n}`,
      async () => (await this.versions(name)).find((v) => v.spec.version === n),
      WAIT_MS,
    );
  }

  /** The controller has seen the PetSet's latest generation. */
  waitObserved(name: string): Promise<PetSet> {
    return eventually(
      `${this.ns}/${name} observed`,
      async () => {
        const ps = await this.petSet(name);
        return (ps.status?.observedGeneration ?? 0) >= (ps.metadata.generation ?? 0) ? ps : undefined;
      },
      WAIT_MS,
    );
  }

  /** Every pet runs version n and is Ready, and the status says so. */
  waitRolledOut(name: string, n: number): Promise<V1Pod[]> {
    return eventually(
      `${this.ns}/${name} rolled out to version ${n}`,
      async () => {
        const ps = await this.waitObserved(name);
        const s = ps.status;
        if (s?.updateVersion !== n || s.currentVersion !== n) return undefined;
        if (s.readyReplicas !== ps.spec.replicas || s.updatedReplicas !== ps.spec.replicas) return undefined;
        const pods = await this.pods(name);
        const settled = pods.every(
          (p) => !p.metadata?.deletionTimestamp && p.metadata?.labels?.[Labels.version] === String(n),
        );
        return settled && pods.length === ps.spec.replicas ? pods : undefined;
      },
      WAIT_MS,
    );
  }

  /**
   * A spec change that makes no version (progressDeadlineSeconds + 1), then the controller
   * observing it: whatever happened before has been synced.
   */
  async barrier(name: string): Promise<void> {
    const seconds = (await this.petSet(name)).spec.progressDeadlineSeconds + 1;
    const patch = JSON.stringify({ spec: { progressDeadlineSeconds: seconds } });
    await this.kubectl(["patch", "petset", name, "--type=merge", "-p", patch]);
    await this.waitObserved(name);
  }

  /** `kubectl get ARGS` as rows of cells by column header. */
  async getTable(args: string[]): Promise<Record<string, string>[]> {
    return parseTable((await this.kubectl(["get", ...args])).stdout);
  }
}

/** kubectl's aligned table output, cut at the header's column positions. */
export function parseTable(text: string): Record<string, string>[] {
  const [header = "", ...rows] = text.split("\n").filter((l) => l.trim() !== "");
  const starts = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index ?? 0 }));
  return rows.map((row) =>
    Object.fromEntries(
      starts.map((c, i) => [c.name, row.slice(c.at, starts[i + 1]?.at ?? row.length).trim()]),
    ),
  );
}
