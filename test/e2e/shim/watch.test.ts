import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type KubeconfigFetch, type ShimHarness, startHarness } from "./harness.js";

interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    reason?: string;
  };
}

/** Reads newline-delimited watch events from a raw HTTP watch. */
function rawWatch(url: string, fetch: KubeconfigFetch): { events: WatchEvent[]; stop: () => void } {
  const events: WatchEvent[] = [];
  const ctl = new AbortController();
  void (async () => {
    try {
      const res = await fetch(url, { signal: ctl.signal });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let nl = buf.indexOf("\n");
        while (nl >= 0) {
          events.push(JSON.parse(buf.slice(0, nl)) as WatchEvent);
          buf = buf.slice(nl + 1);
          nl = buf.indexOf("\n");
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, stop: () => ctl.abort() };
}

const cm = (name: string, labels = "{}") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, labels: ${labels}}\ndata: {a: "1"}\n`;

describe("watch", () => {
  let h: ShimHarness;
  beforeAll(async () => {
    h = await startHarness({ watchWindow: 20, bookmarkIntervalMs: 200 });
  });
  afterAll(async () => {
    await h.close();
  });

  it("streams changes to `kubectl get -w`", async () => {
    await h.kubectl(["apply", "-f", "-"], cm("first"));
    const w = h.spawnKubectl(["get", "cm", "-w"]);
    await eventually(() => /first\s+1/.test(w.output()), 10_000, "initial list");
    await h.kubectl(["apply", "-f", "-"], cm("second"));
    await eventually(() => /second\s+1/.test(w.output()), 10_000, "watch event");
    w.stop();
    expect(w.output()).toMatch(/^NAME\s+DATA\s+AGE/);
  });

  it("resumes from a resourceVersion, sends bookmarks, and honours selectors", async () => {
    const list = (await (await h.fetch(`${h.server.url}/api/v1/namespaces/default/configmaps`)).json()) as {
      metadata: { resourceVersion: string };
    };
    const w = rawWatch(
      `${h.server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&labelSelector=sel%3Dyes&allowWatchBookmarks=true`,
      h.fetch,
    );
    await h.kubectl(["apply", "-f", "-"], cm("sel", "{sel: 'yes'}"));
    await h.kubectl(["apply", "-f", "-"], cm("unsel", "{sel: 'no'}"));
    await h.kubectl(["label", "cm", "sel", "sel=no", "--overwrite"]);
    await eventually(
      () => w.events.some((e) => e.type === "DELETED"),
      10_000,
      "DELETED on leaving the selector",
    );
    await eventually(() => w.events.some((e) => e.type === "BOOKMARK"), 10_000, "bookmark");
    w.stop();
    const named = w.events
      .filter((e) => e.type !== "BOOKMARK")
      .map((e) => `${e.type} ${e.object.metadata.name}`);
    expect(named).toEqual(["ADDED sel", "DELETED sel"]);
  });

  it("returns 410 Expired for a resourceVersion older than the window", async () => {
    for (let i = 0; i < 30; i++)
      await h.fetch(`${h.server.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ metadata: { name: `bulk-${i}` } }),
      });
    const w = rawWatch(
      `${h.server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=2`,
      h.fetch,
    );
    await eventually(() => w.events.length > 0, 10_000, "error event");
    w.stop();
    expect(w.events[0]!.type).toBe("ERROR");
    expect(w.events[0]!.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
  });

  it("sends initial events and the initial-events-end bookmark when asked", async () => {
    const w = rawWatch(
      `${h.server.url}/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      h.fetch,
    );
    await eventually(() => w.events.some((e) => e.type === "BOOKMARK"), 10_000, "initial-events-end");
    w.stop();
    const end = w.events.find((e) => e.type === "BOOKMARK")!;
    expect(end.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
    expect(w.events.filter((e) => e.type === "ADDED").length).toBeGreaterThan(30);
  });
});
