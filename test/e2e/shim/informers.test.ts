/**
 * Done-criterion 2 of the embedded API server: `@kubernetes/client-node` informers (alone and
 * through our wrapper, src/controller/informers.ts) survive long idle periods and a forced
 * 410 Expired without missing an event.
 *
 * Time is compressed, not waited for: the server ends every watch after
 * `maxWatchTimeoutSeconds` (fractions of a second here, kube's 30–60 min in production), so
 * "10 minutes idle" is ten server-side watch timeouts. A small HTTP proxy between client and
 * server counts list and watch requests (a healthy informer relists only after a 410) and
 * can partition the client: hold its requests (the watch ends, the reconnect waits) or fail
 * them (cut the stream, answer 503) while the test writes more than the watch window.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  ListWatch,
  type V1ConfigMap,
  Watch,
} from "@kubernetes/client-node";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  type ApiServer,
  type ApiServerOptions,
  startApiServer,
  writeKubeconfig,
} from "../../../src/apiserver-shim/index.js";
import { type ControllerCaches, startControllerCaches } from "../../../src/controller/informers.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { eventually, type KubeconfigFetch, kubeconfigAccess } from "./harness.js";

/** Server-side watch timeouts that stand for "10 minutes idle". */
const IDLE_TIMEOUTS = 10;
/** Seconds a watch lives on these servers (kube-apiserver: 1800–3600). */
const WATCH_SECONDS = 0.2;

interface Seen {
  method: string;
  path: string;
  watch: boolean;
  resourceVersion: string | undefined;
  allowWatchBookmarks: boolean;
  /** Status the client got (503 when the proxy failed the request). */
  status?: number;
  /** First line of the response body: a watch's 410 arrives as an ERROR event there. */
  firstLine?: string;
  /** How the response reached the client: complete, or cut. */
  outcome?: "ended" | "cut";
}

interface Proxy {
  url: string;
  seen: Seen[];
  lists(path: string): Seen[];
  watches(path: string): Seen[];
  /** Requests waiting for `heal()`. */
  held(): number;
  /** hold: new requests wait (open streams go on until the server ends them); fail: cut and 503. */
  partition(mode: "hold" | "fail"): void;
  heal(): void;
  close(): Promise<void>;
}

/** The token of the servers here; what a raw client of each needs (by URL), from its kubeconfig. */
const TOKEN = "informers-test-token";
const access = new Map<string, { ca: string; fetch: KubeconfigFetch }>();

async function startServer(opts: ApiServerOptions, dir: string): Promise<ApiServer> {
  const server = await startApiServer({ tokens: [TOKEN], ...opts });
  const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  await server.writeKubeconfig(path);
  access.set(server.url, await kubeconfigAccess(path));
  return server;
}

/** An HTTP proxy that forwards to `target`, records every request and can partition the client. */
async function startProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const open = new Set<ServerResponse>();
  let mode: "open" | "hold" | "fail" = "open";
  let waiting: (() => void)[] = [];
  const unavailable = (res: ServerResponse, s: Seen) => {
    s.status = 503;
    s.outcome = "ended";
    res.writeHead(503, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 503 }));
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const s: Seen = {
      method: req.method ?? "GET",
      path: url.pathname,
      watch: url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1",
      resourceVersion: url.searchParams.get("resourceVersion") ?? undefined,
      allowWatchBookmarks: url.searchParams.get("allowWatchBookmarks") === "true",
    };
    seen.push(s);
    const forward = () => {
      if (mode === "fail") return unavailable(res, s);
      const up = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          ca: access.get(target)?.ca,
        },
        (ur) => {
          s.status = ur.statusCode ?? 0;
          res.writeHead(s.status, ur.headers);
          open.add(res);
          let head = "";
          ur.on("data", (chunk: Buffer) => {
            if (s.firstLine === undefined) {
              head += chunk.toString();
              const nl = head.indexOf("\n");
              if (nl >= 0) s.firstLine = head.slice(0, nl);
            }
            res.write(chunk);
          });
          ur.on("end", () => {
            s.outcome ??= "ended";
            s.firstLine ??= head;
            res.end();
          });
        },
      );
      up.on("error", () => res.destroy());
      res.on("close", () => {
        open.delete(res);
        if (!res.writableFinished) s.outcome = "cut";
        up.destroy();
      });
      req.pipe(up);
    };
    if (mode === "hold") waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const release = () => {
    const w = waiting;
    waiting = [];
    for (const f of w) f();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    lists: (path) => seen.filter((s) => s.method === "GET" && s.path === path && !s.watch),
    watches: (path) => seen.filter((s) => s.path === path && s.watch),
    held: () => waiting.length,
    partition(m) {
      mode = m;
      if (m !== "fail") return;
      for (const res of open) res.destroy();
      release();
    },
    heal() {
      mode = "open";
      release();
    },
    async close() {
      mode = "fail";
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Change = "add" | "update" | "delete";
interface Recorded {
  kind: Change;
  name: string;
}

/** Watches a cache's callbacks; `names(kind)` lists the objects a callback of that kind saw. */
function recorder() {
  const events: Recorded[] = [];
  return {
    events,
    push: (kind: Change, obj: KubernetesObject) => events.push({ kind, name: obj.metadata?.name ?? "" }),
    names: (kind: Change) => events.filter((e) => e.kind === kind).map((e) => e.name),
  };
}

/** name → resourceVersion: the informer's cache must equal the server's state exactly. */
function versions(objects: readonly KubernetesObject[]): Record<string, string> {
  return Object.fromEntries(
    objects.map((o) => [o.metadata?.name ?? "", o.metadata?.resourceVersion ?? ""]).sort(),
  );
}

/** Talks to the server directly (never through the proxy). */
function api(server: ApiServer) {
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const res = await access.get(server.url)!.fetch(`${server.url}${path}`, {
      method,
      headers: { "Content-Type": type },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as KubernetesObject & { items?: KubernetesObject[] };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    create: (path: string, body: unknown) => call("POST", path, body),
    patch: (path: string, body: unknown) => call("PATCH", path, body, "application/merge-patch+json"),
    remove: (path: string) => call("DELETE", path),
    list: async (path: string) => (await call("GET", path)).items ?? [],
  };
}

const CM = "/api/v1/namespaces/default/configmaps";

const cm = (name: string) => ({ metadata: { name }, data: { v: "0" } });

async function kubeConfigFor(url: string, dir: string): Promise<KubeConfig> {
  const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  const ca = access.get(url)?.ca;
  await writeKubeconfig(path, { server: url, token: TOKEN, ...(ca ? { certificateAuthority: ca } : {}) });
  return loadKubeConfig({ kubeconfig: path });
}

describe("client-node informers on the shim", () => {
  let dir: string;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "shim-informers-"));
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A shim with short watch timeouts behind a proxy, and a configmap informer through it. */
  async function configMapInformer(opts: { watchWindow?: number }) {
    const server = await startServer(
      { maxWatchTimeoutSeconds: WATCH_SECONDS, bookmarkIntervalMs: 50, ...opts },
      dir,
    );
    cleanups.push(() => server.close());
    const proxy = await startProxy(server.url);
    cleanups.push(() => proxy.close());
    const kc = await kubeConfigFor(proxy.url, dir);
    const core = kc.makeApiClient(CoreV1Api);
    // What makeInformer builds, typed as the class so the test can read its resourceVersion.
    const informer = new ListWatch<V1ConfigMap>(
      CM,
      new Watch(kc),
      () => core.listNamespacedConfigMap({ namespace: "default" }),
      false,
    );
    const seen = recorder();
    const errors: unknown[] = [];
    informer.on("add", (o) => seen.push("add", o));
    informer.on("update", (o) => seen.push("update", o));
    informer.on("delete", (o) => seen.push("delete", o));
    informer.on("error", (e) => errors.push(e));
    cleanups.push(() => informer.stop());
    return { server, proxy, informer, seen, errors, api: api(server) };
  }

  it("keeps one list and re-watches from its resourceVersion across server watch timeouts", async () => {
    const { server, proxy, informer, seen, errors, api } = await configMapInformer({});
    await api.create(CM, cm("before"));
    await informer.start();
    expect(versions(informer.list("default"))).toEqual(versions(await api.list(CM)));
    const listRv = informer.latestResourceVersion();

    // "10 minutes idle": the server ends the watch IDLE_TIMEOUTS times; each end is clean and
    // the informer resumes from the same resourceVersion, without listing again.
    await eventually(
      () => proxy.watches(CM).filter((w) => w.outcome === "ended").length >= IDLE_TIMEOUTS,
      30_000,
      `${IDLE_TIMEOUTS} server-side watch timeouts`,
    );
    const idle = proxy.watches(CM).filter((w) => w.outcome === "ended");
    expect(idle.every((w) => w.status === 200 && w.resourceVersion === listRv)).toBe(true);
    expect(proxy.lists(CM)).toHaveLength(1);
    expect(errors).toEqual([]);

    // A change made after the idle period reaches the callbacks and the cache.
    await api.create(CM, cm("after-idle"));
    await eventually(() => seen.names("add").includes("after-idle"), 10_000, "ADD after idle");
    await api.patch(`${CM}/after-idle`, { data: { v: "1" } });
    await eventually(() => seen.names("update").includes("after-idle"), 10_000, "UPDATE after idle");
    await api.remove(`${CM}/before`);
    await eventually(() => seen.names("delete").includes("before"), 10_000, "DELETE after idle");
    expect(versions(informer.list("default"))).toEqual(versions(await api.list(CM)));
    expect(proxy.lists(CM)).toHaveLength(1);
    expect(errors).toEqual([]);

    // client-node never asks for bookmarks; clients that do get them during the idle period,
    // carrying the current resourceVersion, until the server ends the watch.
    expect(proxy.watches(CM).some((w) => w.allowWatchBookmarks)).toBe(false);
    const body = await (
      await access
        .get(server.url)!
        .fetch(`${server.url}${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${listRv}`)
    ).text();
    const events = body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; object: KubernetesObject });
    const bookmarks = events.filter((e) => e.type === "BOOKMARK");
    expect(bookmarks.length).toBeGreaterThanOrEqual(2);
    expect(bookmarks.at(-1)!.object.metadata?.resourceVersion).toBe(informer.latestResourceVersion());
  });

  it("relists once after a 410 and ends with exactly the server's objects", async () => {
    const { proxy, informer, seen, errors, api } = await configMapInformer({ watchWindow: 5 });
    for (const n of ["keep-0", "keep-1", "keep-2", "gone-0", "gone-1", "gone-2"]) await api.create(CM, cm(n));
    await informer.start();
    expect(proxy.lists(CM)).toHaveLength(1);
    const staleRv = informer.latestResourceVersion();

    // Partition: the open watch runs out, the informer's reconnect is held at the proxy.
    proxy.partition("hold");
    await eventually(() => proxy.held() >= 1, 10_000, "the informer's reconnect to be held");
    // Far more writes than the window (5 events, compacted beyond 5 + 16) while it is away.
    for (let i = 0; i < 10; i++) await api.create(CM, cm(`new-${i}`));
    for (let round = 1; round <= 3; round++)
      for (const n of ["keep-0", "keep-1", "keep-2"])
        await api.patch(`${CM}/${n}`, { data: { v: `${round}` } });
    for (const n of ["gone-0", "gone-1", "gone-2"]) await api.remove(`${CM}/${n}`);
    for (let i = 0; i < 5; i++) {
      await api.create(CM, cm(`flap-${i}`));
      await api.remove(`${CM}/flap-${i}`);
    }
    const healedAt = proxy.seen.length;
    proxy.heal();

    // The reconnect carries the stale resourceVersion, gets 410 Expired, and client-node lists.
    await eventually(() => proxy.lists(CM).length === 2, 10_000, "a relist after 410");
    const expiredWatch = proxy.seen.slice(healedAt - 1).find((w) => w.path === CM && w.watch);
    expect(expiredWatch?.resourceVersion).toBe(staleRv);
    expect(expiredWatch?.firstLine).toMatch(/"type":"ERROR".*"reason":"Expired".*"code":410/);
    await eventually(
      async () =>
        JSON.stringify(versions(informer.list("default"))) === JSON.stringify(versions(await api.list(CM))),
      10_000,
      "the cache to equal a fresh list",
    );
    expect(seen.names("add")).toEqual(
      expect.arrayContaining(Array.from({ length: 10 }, (_, i) => `new-${i}`)),
    );
    expect(seen.names("update")).toEqual(expect.arrayContaining(["keep-0", "keep-1", "keep-2"]));
    expect(seen.names("delete").sort()).toEqual(["gone-0", "gone-1", "gone-2"]);
    expect(seen.events.some((e) => e.name.startsWith("flap-"))).toBe(false); // born and gone unseen
    expect(errors).toEqual([]);

    // Watching again from the relist: a later change arrives live, with no further list.
    await api.create(CM, cm("after-relist"));
    await eventually(() => seen.names("add").includes("after-relist"), 10_000, "ADD after relist");
    expect(proxy.lists(CM)).toHaveLength(2);
  });

  it("stops for good after a non-410 error when used without our wrapper", async () => {
    const { server, proxy, informer, errors, api } = await configMapInformer({});
    await informer.start();
    const rvNow = informer.latestResourceVersion();
    proxy.partition("fail");
    await eventually(() => errors.length > 0, 10_000, "the informer's error callback");
    const requests = proxy.seen.length;
    proxy.heal();
    await api.create(CM, cm("unseen"));
    // client-node's doneHandler returns after calling the error callbacks: nothing restarts
    // it. One whole server watch period later (a live informer reconnects at once) it has
    // made no request and missed the change. Our wrapper restarts it; see the next suite.
    await (
      await access.get(server.url)!.fetch(`${server.url}${CM}?watch=true&resourceVersion=${rvNow}`)
    ).text();
    expect(proxy.seen.length).toBe(requests);
    expect(informer.get("unseen", "default")).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});

describe("startControllerCaches (src/controller/informers.ts) on the shim", () => {
  let dir: string;
  let server: ApiServer;
  let proxy: Proxy;
  let caches: ControllerCaches;
  const seen = recorder();
  const PODS = "/api/v1/namespaces/default/pods";
  const pod = (name: string) => ({
    metadata: { name, labels: { "petset.dev/petset": "web" } },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });
  const podsMatch = async () =>
    JSON.stringify(versions(caches.pods.list("default"))) ===
    JSON.stringify(versions(await api(server).list(`${PODS}?labelSelector=petset.dev%2Fpetset`)));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "shim-caches-"));
    server = await startServer({ watchWindow: 5, maxWatchTimeoutSeconds: WATCH_SECONDS }, dir);
    for (const file of ["crds/petsets.petset.dev.yaml", "crds/petsetversions.petset.dev.yaml"])
      for (const doc of parseAllDocuments(await readFile(file, "utf8")))
        await api(server).create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", doc.toJSON());
    await api(server).create(PODS, pod("web-0"));
    await api(server).create(PODS, { ...pod("other"), metadata: { name: "other" } }); // not petset's
    proxy = await startProxy(server.url);
    caches = startControllerCaches({
      kubeConfig: await kubeConfigFor(proxy.url, dir),
      namespace: "default",
      logger: pino({ level: "silent" }),
      restartDelayMs: 10,
    });
    caches.pods.onChange((o, kind) => seen.push(kind, o));
    await Promise.all(Object.values(caches).map((c) => c.synced));
  });
  afterAll(async () => {
    await Promise.all(Object.values(caches).map((c) => c.stop()));
    await proxy.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("stays connected through idle server timeouts and sees a later pod", async () => {
    expect(caches.pods.list("default").map((p) => p.metadata?.name)).toEqual(["web-0"]);
    const before = proxy.watches(PODS).length;
    await eventually(
      () => proxy.watches(PODS).filter((w) => w.outcome === "ended").length >= before + IDLE_TIMEOUTS,
      30_000,
      `${IDLE_TIMEOUTS} server-side watch timeouts`,
    );
    expect(proxy.lists(PODS)).toHaveLength(1);
    await api(server).create(PODS, pod("web-1"));
    await eventually(() => seen.names("add").includes("web-1"), 10_000, "ADD after idle");
    expect(await podsMatch()).toBe(true);
    expect(proxy.lists(PODS)).toHaveLength(1);
  });

  it("restarts after errors and resyncs through 410 without missing a change", async () => {
    const staleRv = caches.pods.get("web-1", "default")?.metadata?.resourceVersion;
    // Cut the watch and refuse every request: client-node reports errors and stops; the
    // wrapper restarts it with backoff, which fails again while the partition lasts.
    proxy.partition("fail");
    await eventually(
      () => proxy.watches(PODS).filter((w) => w.status === 503).length >= 2,
      10_000,
      "the wrapper to restart the pod watch at least twice",
    );
    await api(server).create(PODS, pod("web-2"));
    await api(server).remove(`${PODS}/web-0`);
    for (let round = 1; round <= 12; round++) {
      await api(server).patch(`${PODS}/web-1`, { metadata: { annotations: { round: `${round}` } } });
      await api(server).patch(`${PODS}/other`, { metadata: { annotations: { round: `${round}` } } });
    }
    const healedAt = proxy.seen.length;
    proxy.heal();

    await eventually(() => proxy.lists(PODS).length === 2, 30_000, "a relist after 410");
    const expiredWatch = proxy.seen.slice(healedAt).find((w) => w.path === PODS && w.watch);
    expect(expiredWatch?.resourceVersion).toBe(staleRv);
    expect(expiredWatch?.firstLine).toMatch(/"reason":"Expired".*"code":410/);
    await eventually(podsMatch, 10_000, "the pod cache to equal a fresh list");
    expect(seen.names("add")).toContain("web-2");
    expect(seen.names("delete")).toContain("web-0");
    expect(seen.names("update")).toContain("web-1");
    expect(caches.pods.get("web-1", "default")?.metadata?.annotations).toEqual({ round: "12" });

    await api(server).create(PODS, pod("web-3"));
    await eventually(() => seen.names("add").includes("web-3"), 10_000, "ADD after the resync");
    expect(proxy.lists(PODS)).toHaveLength(2);
  });

  it("restarts when the informer's start() rejects instead of reporting an error", async () => {
    // client-node's start() rejects, with no error callback, when something outside its try
    // blocks throws: a credential plugin, or (used here, being deterministic) a handler
    // throwing during the list. The wrapper must retry that too.
    const fresh = startControllerCaches({
      kubeConfig: await kubeConfigFor(server.url, dir),
      namespace: "default",
      logger: pino({ level: "silent" }),
      restartDelayMs: 10,
    });
    let thrown = 0;
    fresh.pods.onChange(() => {
      if (thrown++ === 0) throw new Error("handler failed once");
    });
    try {
      let synced = false;
      void fresh.pods.synced.then(() => {
        synced = true;
      });
      await eventually(() => synced, 10_000, "the pod cache to sync after a restart");
      expect(thrown).toBeGreaterThan(1);
      expect(versions(fresh.pods.list("default"))).toEqual(versions(caches.pods.list("default")));
    } finally {
      await Promise.all(Object.values(fresh).map((c) => c.stop()));
    }
  });
});
