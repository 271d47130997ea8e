/** PetSet manifests and a watch-fed record of the PetSetVersions of a namespace. */
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
export class VersionWatch {
  readonly firstSeen = new Map<string, number>();
  /** `<petset>@<generation>` (spec.petSet, spec.generation) to when it was first seen. */
  readonly byGeneration = new Map<string, number>();
  readonly live = new Set<string>();
  private waiters: Array<() => void> = [];
  private stream: WatchStream | undefined;

  constructor(
    private readonly http: KubeHttp,
    private readonly ns: string,
  ) {}

  async start(): Promise<void> {
    const list = await this.http.json<{
      metadata: { resourceVersion: string };
      items: Array<{ metadata: { name: string } }>;
    }>("GET", versionsPath(this.ns));
    for (const v of list.items) this.live.add(v.metadata.name);
    this.stream = this.http.watch(
      `${versionsPath(this.ns)}?resourceVersion=${list.metadata.resourceVersion}`,
      (ev, at) => {
        const name = ev.object.metadata?.name;
        if (!name) return;
        if (ev.type === "ADDED") {
          if (!this.firstSeen.has(name)) this.firstSeen.set(name, at);
          const spec = ev.object.spec as { petSet?: string; generation?: number } | undefined;
          const key = `${spec?.petSet}@${spec?.generation}`;
          if (!this.byGeneration.has(key)) this.byGeneration.set(key, at);
          this.live.add(name);
        } else if (ev.type === "DELETED") {
          this.live.delete(name);
        } else if (ev.type === "ERROR") {
          process.stderr.write(`petsetversions watch error: ${JSON.stringify(ev.object).slice(0, 300)}\n`);
        }
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      },
    );
    await this.stream.established;
  }

  /** Resolves when `done()` is true (checked after every event), or false after timeoutMs. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve(true);
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  stop(): void {
    this.stream?.close();
  }
}
