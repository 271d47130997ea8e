/**
 * A watch-fed copy of one collection (any kind, one namespace): the objects that exist now by
 * name, and a callback per event with the time its line arrived. List, then watch from the
 * list's resourceVersion; when the server ends the watch (kube-apiserver closes a watcher it
 * judges slow), watch again from the last event's resourceVersion, and list again on 410.
 * Objects first seen by a re-list are reported as ADDED at that time.
 */

import { EventWaiters } from "./event-waiters.js";
import type { KubeHttp, WatchStream } from "./kube-http.js";

export interface ObjectMeta {
  name: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  ownerReferences?: Array<{ name: string; uid: string; kind: string }>;
}

export interface KubeObject {
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export type ObjectEvent = "ADDED" | "MODIFIED" | "DELETED";

export class ObjectWatch<T extends KubeObject = KubeObject> {
  readonly live = new Map<string, T>();
  private readonly waiters = new EventWaiters();
  private stream: WatchStream | undefined;
  private stopped = false;

  constructor(
    private readonly http: KubeHttp,
    private readonly path: string,
    private readonly onEvent: (type: ObjectEvent, object: T, at: number) => void = () => {},
  ) {}

  async start(): Promise<void> {
    await this.listAndWatch();
  }

  private async listAndWatch(): Promise<void> {
    const list = await this.http.json<{ metadata: { resourceVersion: string }; items: T[] }>(
      "GET",
      this.path,
    );
    const at = performance.now();
    const names = new Set(list.items.map((o) => o.metadata.name));
    for (const [name, o] of this.live) {
      if (names.has(name)) continue;
      this.live.delete(name);
      this.onEvent("DELETED", o, at);
    }
    for (const o of list.items) {
      const type = this.live.has(o.metadata.name) ? "MODIFIED" : "ADDED";
      this.live.set(o.metadata.name, o);
      this.onEvent(type, o, at);
    }
    this.waiters.notify();
    await this.watchFrom(list.metadata.resourceVersion);
  }

  private async watchFrom(resourceVersion: string): Promise<void> {
    let last = resourceVersion;
    let gone = false;
    const sep = this.path.includes("?") ? "&" : "?";
    const stream = this.http.watch(`${this.path}${sep}resourceVersion=${resourceVersion}`, (ev, at) => {
      const o = ev.object as T;
      if (o.metadata?.resourceVersion) last = o.metadata.resourceVersion;
      if (ev.type === "ERROR") {
        gone = (ev.object as { code?: number }).code === 410;
        if (!gone)
          process.stderr.write(`${this.path} watch error: ${JSON.stringify(ev.object).slice(0, 300)}\n`);
        return;
      }
      if (ev.type === "BOOKMARK" || !o.metadata?.name) return;
      if (ev.type === "DELETED") this.live.delete(o.metadata.name);
      else this.live.set(o.metadata.name, o);
      this.onEvent(ev.type as ObjectEvent, o, at);
      this.waiters.notify();
    });
    this.stream = stream;
    await stream.established;
    void stream.ended.then(() => {
      if (this.stopped) return;
      (gone ? this.listAndWatch() : this.watchFrom(last)).catch((err: unknown) => {
        process.stderr.write(`${this.path} watch restart failed: ${String(err)}\n`);
      });
    });
  }

  /** Resolves true when `done()` holds (checked after every event), false after timeoutMs. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    return this.waiters.until(done, timeoutMs);
  }

  stop(): void {
    this.stopped = true;
    this.stream?.close();
  }
}
