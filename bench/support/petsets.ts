/** PetSet manifests and a watch-fed record of the PetSetVersions of a namespace. */

import { EventWaiters } from "./event-waiters.js";
import type { KubeHttp, WatchStream } from "./kube-http.js";

export const PETSETS = "/apis/petset.dev/v1alpha1";
export const petSetsPath = (ns: string) => `${PETSETS}/namespaces/${ns}/petsets`;
export const versionsPath = (ns: string) => `${PETSETS}/namespaces/${ns}/petsetversions`;
export const MERGE_PATCH = "application/merge-patch+json";

export interface PetSetShape {
  replicas: number;
  image: string;
  revisionHistoryLimit?: number;
}

/** The same pod template serves the PetSet and, with apps/v1, the StatefulSet. */
export function podTemplate(app: string, image: string) {
  return {
    metadata: { labels: { app } },
    spec: {
      containers: [{ name: "app", image, ports: [{ containerPort: 80, name: "http" }] }],
    },
  };
}

export function petSetManifest(name: string, s: PetSetShape) {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name, labels: { bench: "true" } },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: { app: name } },
      serviceName: name,
      ...(s.revisionHistoryLimit !== undefined ? { revisionHistoryLimit: s.revisionHistoryLimit } : {}),
      template: podTemplate(name, s.image),
    },
  };
}

/** A merge patch that changes the image (merge patch replaces the containers list whole). */
export function imagePatch(name: string, image: string) {
  return { spec: { template: podTemplate(name, image) } };
}

/**
 * Watches the namespace's PetSetVersions from a list's resourceVersion: when each name was
 * first seen, and which ones exist now.
 */
type VersionSpec = { petSet?: string; generation?: number };

export class VersionWatch {
  readonly firstSeen = new Map<string, number>();
  /** `<petset>@<generation>` (spec.petSet, spec.generation) to when it was first seen. */
  readonly byGeneration = new Map<string, number>();
  readonly live = new Set<string>();
  private readonly waiters = new EventWaiters();
  private stream: WatchStream | undefined;
  private stopped = false;

  constructor(
    private readonly http: KubeHttp,
    private readonly ns: string,
  ) {}

  async start(): Promise<void> {
    await this.listAndWatch();
  }

  /**
   * List, then watch from the list's resourceVersion. When the server ends the watch
   * (kube-apiserver closes watchers it judges unresponsive while thousands of versions are
   * deleted), watch again from the last event's resourceVersion; when that is too old (410),
   * list again. Versions first seen by a re-list count as seen then.
   */
  private async listAndWatch(): Promise<void> {
    const list = await this.http.json<{
      metadata: { resourceVersion: string };
      items: Array<{ metadata: { name: string }; spec?: { petSet?: string; generation?: number } }>;
    }>("GET", versionsPath(this.ns));
    const at = performance.now();
    this.live.clear();
    for (const v of list.items) this.seen(v.metadata.name, v.spec, at);
    this.waiters.notify();
    await this.watchFrom(list.metadata.resourceVersion);
  }

  private async watchFrom(resourceVersion: string): Promise<void> {
    let last = resourceVersion;
    let gone = false;
    const stream = this.http.watch(
      `${versionsPath(this.ns)}?resourceVersion=${resourceVersion}`,
      (ev, at) => {
        const name = ev.object.metadata?.name;
        if (ev.object.metadata?.resourceVersion) last = ev.object.metadata.resourceVersion;
        if (ev.type === "ERROR") {
          gone = (ev.object as { code?: number }).code === 410;
          if (!gone)
            process.stderr.write(`petsetversions watch error: ${JSON.stringify(ev.object).slice(0, 300)}\n`);
          return;
        }
        if (!name) return;
        if (ev.type === "ADDED") this.seen(name, ev.object.spec as VersionSpec | undefined, at);
        else if (ev.type === "DELETED") this.live.delete(name);
        this.waiters.notify();
      },
    );
    this.stream = stream;
    await stream.established;
    void stream.ended.then(() => {
      if (this.stopped) return;
      (gone ? this.listAndWatch() : this.watchFrom(last)).catch((err: unknown) => {
        process.stderr.write(`petsetversions watch restart failed: ${String(err)}\n`);
      });
    });
  }

  private seen(name: string, spec: VersionSpec | undefined, at: number): void {
    if (!this.firstSeen.has(name)) this.firstSeen.set(name, at);
    const key = `${spec?.petSet}@${spec?.generation}`;
    if (!this.byGeneration.has(key)) this.byGeneration.set(key, at);
    this.live.add(name);
  }

  /** Resolves when `done()` is true (checked after every event), or false after timeoutMs. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    return this.waiters.until(done, timeoutMs);
  }

  stop(): void {
    this.stopped = true;
    this.stream?.close();
  }
}
