/**
 * Watch streams: newline-delimited JSON events. Start from "now" with synthetic ADDED
 * events (rv unset/0, or sendInitialEvents), or resume after a resourceVersion from the
 * bounded event window (older → one ERROR event with 410 Expired). Objects moving out of
 * the selector are DELETED, into it ADDED. Bookmarks carry the current resourceVersion.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { expired } from "../errors.js";
import type { GenericStore } from "../registry/generic-store.js";
import { grKey, type ResourceDefinition } from "../registry/resource.js";
import { readOnlyView } from "../registry/stored-form.js";
import type { StoreEvent } from "../storage/event-log.js";
import { buildTable, type IncludeObject, partialObjectMetadata } from "../tables/table.js";
import type { KubeObject } from "../types.js";
import type { Rendering } from "./respond.js";
import type { WatchGauge } from "./watch-gauge.js";

export interface WatchParams {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds?: number;
  rendering: Rendering;
  includeObject: IncludeObject;
  /** Single-object watch (`fieldSelector=metadata.name=x` is how clients do it; kept for completeness). */
  name?: string;
}

export interface WatchConfig {
  bookmarkIntervalMs: number;
  /** Close watches after this long unless the client set timeoutSeconds (kube: 30–60 min). */
  maxTimeoutSeconds: number;
  /** Counts open streams (for /metrics). */
  gauge?: WatchGauge;
}

type EventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  store: GenericStore,
  def: ResourceDefinition,
  ns: string | undefined,
  p: WatchParams,
  cfg: WatchConfig,
  onClose: (fn: () => void) => () => void,
): void {
  const match = store.matcher(def, p);
  const gr = grKey(def);
  const inScope = (o: KubeObject) =>
    (!def.namespaced || ns === undefined || o.metadata.namespace === ns) &&
    (p.name === undefined || o.metadata.name === p.name);
  let headersSent = false;
  const render = (obj: KubeObject): unknown => {
    if (p.rendering === "metadata") return partialObjectMetadata(obj);
    if (p.rendering !== "table") return obj;
    const t = buildTable(def.table, [obj], {
      includeObject: p.includeObject,
      noHeaders: headersSent,
      now: store.clock.now(),
      resourceVersion: obj.metadata.resourceVersion ?? "",
    });
    headersSent = true;
    return t;
  };
  res.writeHead(200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Transfer-Encoding": "chunked",
  });
  res.flushHeaders();
  let closed = false;
  const send = (type: EventType, object: unknown) => {
    if (closed) return;
    res.write(`${JSON.stringify({ type, object })}\n`);
    if (res.writableLength > 64 * 1024 * 1024) finish(); // a client this far behind must relist
  };
  const deliver = (e: StoreEvent) => {
    if (e.gr !== gr) return;
    const obj = readOnlyView(def, e.object);
    const prev = e.prev && readOnlyView(def, e.prev);
    const now = inScope(obj) && match(obj);
    const before = prev !== undefined && inScope(prev) && match(prev);
    if (e.type === "ADDED" && now) send("ADDED", render(obj));
    else if (e.type === "MODIFIED") {
      if (now && before) send("MODIFIED", render(obj));
      else if (now) send("ADDED", render(obj));
      // Left the selector: kube sends the previous content at the event's resourceVersion.
      else if (before && prev)
        send(
          "DELETED",
          render({ ...prev, metadata: { ...prev.metadata, resourceVersion: obj.metadata.resourceVersion } }),
        );
    } else if (e.type === "DELETED" && before) send("DELETED", render(obj));
  };
  const bookmark = (annotations?: Record<string, string>) =>
    send("BOOKMARK", {
      kind: def.kind,
      apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
      metadata: {
        resourceVersion: String(store.objects.currentRv()),
        ...(annotations ? { annotations } : {}),
      },
    });

  const rv = p.resourceVersion;
  const fromNow = p.sendInitialEvents || rv === undefined || rv === "" || rv === "0";
  let unsubscribe: () => void = () => {};
  let counted = false;
  if (fromNow) {
    for (const o of store.objects.list(gr, def.namespaced ? ns : undefined))
      if (inScope(o) && match(o)) send("ADDED", render(o));
    if (p.sendInitialEvents && p.allowWatchBookmarks) bookmark({ "k8s.io/initial-events-end": "true" });
    unsubscribe = store.objects.subscribe(deliver);
  } else {
    const n = Number(rv);
    const backlog = Number.isFinite(n) ? store.objects.eventsSince(gr, n) : undefined;
    if (!backlog) {
      // kube: "too old resource version: N (M)", M the newest resourceVersion no longer in the window.
      const oldest = store.objects.oldestResumable(gr);
      send("ERROR", expired(`too old resource version: ${rv} (${oldest})`).status);
      res.end();
      return;
    }
    for (const e of backlog) deliver(e);
    unsubscribe = store.objects.subscribe(deliver);
  }
  cfg.gauge?.opened(gr);
  counted = true;
  const timers: NodeJS.Timeout[] = [];
  if (p.allowWatchBookmarks) timers.push(setInterval(() => bookmark(), cfg.bookmarkIntervalMs));
  const timeout = p.timeoutSeconds && p.timeoutSeconds > 0 ? p.timeoutSeconds : cfg.maxTimeoutSeconds;
  timers.push(setTimeout(() => finish(), timeout * 1000));
  const forget = onClose(() => finish());
  function finish(): void {
    if (closed) return;
    closed = true;
    if (counted) cfg.gauge?.closed(gr);
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    forget();
    res.end();
  }
  req.on("close", finish);
  res.on("close", finish);
}
