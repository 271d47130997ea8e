import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { listInPages } from "../../../src/controller/paged-list.js";

const obj = (name: string): KubernetesObject => ({ metadata: { name } });

/** A server of `names` in pages; `tokenField` is how the page spells its continue token. */
function pages(names: string[], tokenField: "_continue" | "continue") {
  const asked: { limit: number; token: string | undefined }[] = [];
  const fetch = async (limit: number, token: string | undefined) => {
    asked.push({ limit, token });
    const start = token === undefined ? 0 : Number(token);
    const end = Math.min(names.length, start + limit);
    const more = end < names.length ? { [tokenField]: String(end) } : {};
    const list: KubernetesListObject<KubernetesObject> = {
      apiVersion: "v1",
      kind: "List",
      // Each page says its own resourceVersion: only the first one's may be kept.
      metadata: { resourceVersion: `rv-${start}`, ...more },
      items: names.slice(start, end).map(obj),
    };
    return list;
  };
  return { fetch, asked };
}

describe("listInPages", () => {
  it.each([
    ["typed lists (_continue)", "_continue"],
    ["raw JSON lists (continue)", "continue"],
  ] as const)("joins every page of %s, keeping the first page's resourceVersion", async (_n, field) => {
    const server = pages(["a", "b", "c", "d", "e"], field);
    const list = await listInPages(server.fetch, 2);
    expect(list.items.map((o) => o.metadata?.name)).toEqual(["a", "b", "c", "d", "e"]);
    expect(list.metadata).toEqual({ resourceVersion: "rv-0" });
    expect(server.asked).toEqual([
      { limit: 2, token: undefined },
      { limit: 2, token: "2" },
      { limit: 2, token: "4" },
    ]);
  });

  it("asks once when everything fits in a page, and for nothing more after an empty token", async () => {
    const server = pages(["a"], "_continue");
    expect((await listInPages(server.fetch)).items).toHaveLength(1);
    expect(server.asked).toEqual([{ limit: 500, token: undefined }]);
    const empty = await listInPages(async () => ({
      apiVersion: "v1",
      kind: "List",
      metadata: { resourceVersion: "7", _continue: "" },
      items: [],
    }));
    expect(empty).toEqual({ apiVersion: "v1", kind: "List", metadata: { resourceVersion: "7" }, items: [] });
  });

  it("hands every item to `each` as its page arrives, before the next page is asked for", async () => {
    const server = pages(["a", "b", "c"], "_continue");
    const seen: string[] = [];
    const fetch = async (limit: number, token: string | undefined) => {
      seen.push(`page after ${token ?? "start"}`);
      return server.fetch(limit, token);
    };
    await listInPages(fetch, 2, (o) => seen.push(o.metadata?.name ?? ""));
    expect(seen).toEqual(["page after start", "a", "b", "page after 2", "c"]);
  });

  it("fails when a page fails (the cache restarts the whole list)", async () => {
    const server = pages(["a", "b", "c"], "_continue");
    const failing = async (limit: number, token: string | undefined) => {
      if (token !== undefined) throw new Error("410 Expired");
      return server.fetch(limit, token);
    };
    await expect(listInPages(failing, 1)).rejects.toThrow("410 Expired");
  });
});
