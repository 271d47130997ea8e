import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { Labels, type PetSetVersion } from "../../../src/api/index.js";
import {
  apiErrorReason,
  GC_DELETES_IN_FLIGHT,
  type PodLike,
  runVersionGc,
  type VersionGcDeps,
  VersionGcError,
  waves,
} from "../../../src/gc/runner.js";
import { petSet, version } from "../versions/fixtures.js";

interface DeleteCall {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/**
 * A fake API behind the GC's deps: a version store with uid/resourceVersion preconditions
 * like the API server's, and per-name error injection.
 */
class FakeVersionApi implements VersionGcDeps {
  readonly calls: DeleteCall[] = [];
  readonly failures = new Map<string, unknown>();
  private readonly stored: Map<string, PetSetVersion>;

  constructor(
    private readonly cached: readonly PetSetVersion[],
    private readonly pods: readonly PodLike[] = [],
    stored: readonly PetSetVersion[] = cached,
  ) {
    this.stored = new Map(stored.map((v) => [v.metadata.name ?? "", v]));
  }

  listVersions(): readonly PetSetVersion[] {
    return this.cached;
  }

  listPods(): readonly PodLike[] {
    return this.pods;
  }

  async deleteVersion(namespace: string, name: string, uid: string, resourceVersion: string): Promise<void> {
    this.calls.push({ namespace, name, uid, resourceVersion });
    const injected = this.failures.get(name);
    if (injected !== undefined) throw injected;
    const current = this.stored.get(name);
    if (current === undefined) throw { code: 404, body: { kind: "Status", reason: "NotFound", code: 404 } };
    if (current.metadata.uid !== uid || current.metadata.resourceVersion !== resourceVersion) {
      throw { code: 409, body: JSON.stringify({ kind: "Status", reason: "Conflict", code: 409 }) };
    }
    this.stored.delete(name);
  }

  remaining(): string[] {
    return [...this.stored.keys()].sort();
  }
}

const pod = (name: string, labels: Record<string, string>): PodLike => ({ metadata: { name, labels } });
const petPod = (ordinal: number, n: number): PodLike =>
  pod(`web-${ordinal}`, { [Labels.petSet]: "web", [Labels.version]: String(n) });
const history = (...numbers: number[]) => numbers.map((n) => version(n));
const status = (currentVersion: number, updateVersion = currentVersion) => ({
  currentVersion,
  updateVersion,
});

describe("runVersionGc", () => {
  it("deletes beyond the limit, oldest first, with uid and resourceVersion preconditions", async () => {
    const api = new FakeVersionApi(history(1, 2, 3, 4), [petPod(0, 4)]);
    const ps = petSet({ status: status(4), spec: { revisionHistoryLimit: 1 } });
    const result = await runVersionGc(api, ps);
    expect(result).toEqual({ deleted: ["web-v1", "web-v2"], alreadyGone: [], conflicted: [] });
    expect(api.calls).toEqual([
      { namespace: "default", name: "web-v1", uid: "uid-web-v1", resourceVersion: "101" },
      { namespace: "default", name: "web-v2", uid: "uid-web-v2", resourceVersion: "102" },
    ]);
    expect(api.remaining()).toEqual(["web-v3", "web-v4"]);
  });

  it("keeps every version a pod runs", async () => {
    const api = new FakeVersionApi(history(1, 2, 3, 4), [petPod(0, 4), petPod(1, 1)]);
    const result = await runVersionGc(api, petSet({ status: status(4), spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual(["web-v2", "web-v3"]);
  });

  it("tells a pod's version by its hash when the version label is missing", async () => {
    const versions = history(1, 2, 3);
    const byHash = pod("web-0", { [Labels.petSet]: "web", [Labels.hash]: versions[0]?.spec.hash ?? "" });
    const api = new FakeVersionApi(versions, [byHash]);
    const result = await runVersionGc(api, petSet({ status: status(3), spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual(["web-v2"]);
  });

  it("collects nothing when a pod's version cannot be told", async () => {
    const api = new FakeVersionApi(history(1, 2, 3), [pod("web-0", { [Labels.petSet]: "web" })]);
    const result = await runVersionGc(api, petSet({ status: status(3), spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual([]);
    expect(result.blocked).toMatch(/pod web-0 has no usable petset.dev\/version/);
    expect(api.calls).toEqual([]);
  });

  it("ignores pods of other PetSets", async () => {
    const stranger = pod("db-0", { [Labels.petSet]: "db", [Labels.version]: "1" });
    const api = new FakeVersionApi(history(1, 2), [stranger, pod("x", {})]);
    const result = await runVersionGc(api, petSet({ status: status(2), spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual(["web-v1"]);
  });

  it("never touches versions it does not own", async () => {
    const leftover = version(1, "old", { ownerUid: "uid-of-deleted-web" });
    const orphan = version(2, "orphan", { ownerUid: null });
    const api = new FakeVersionApi([leftover, orphan, ...history(3, 4)]);
    const result = await runVersionGc(api, petSet({ status: status(4), spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual(["web-v3"]);
  });

  it("tolerates NotFound: someone deleted it first", async () => {
    const versions = history(1, 2, 3);
    const api = new FakeVersionApi(versions, [], versions.slice(1));
    const result = await runVersionGc(api, petSet({ status: status(3), spec: { revisionHistoryLimit: 0 } }));
    expect(result).toEqual({ deleted: ["web-v2"], alreadyGone: ["web-v1"], conflicted: [] });
  });

  it("reports a failed precondition as a conflict and carries on", async () => {
    const cached = history(1, 2, 3);
    const recreated = { ...version(1), metadata: { ...version(1).metadata, uid: "uid-recreated" } };
    const api = new FakeVersionApi(cached, [], [recreated, ...cached.slice(1)]);
    const result = await runVersionGc(api, petSet({ status: status(3), spec: { revisionHistoryLimit: 0 } }));
    expect(result).toEqual({ deleted: ["web-v2"], alreadyGone: [], conflicted: ["web-v1"] });
    expect(api.remaining()).toEqual(["web-v1", "web-v3"]);
  });

  it("deletes what it can, then throws a typed error naming what failed", async () => {
    const api = new FakeVersionApi(history(1, 2, 3, 4));
    const cause = Object.assign(new Error("etcd timeout"), { code: 500 });
    api.failures.set("web-v2", cause);
    const error = await runVersionGc(
      api,
      petSet({ status: status(4), spec: { revisionHistoryLimit: 0 } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionGcError);
    const gcError = error as VersionGcError;
    expect(gcError.reason).toBe("VersionGcFailed");
    expect(gcError.message).toBe("PetSet web: deleting old versions failed: web-v2: etcd timeout");
    expect(gcError.cause).toBe(cause);
    expect(gcError.result.deleted).toEqual(["web-v1", "web-v3"]);
    expect(api.remaining()).toEqual(["web-v2", "web-v4"]);
  });

  it("runs without a status: only the newest and the pods' versions are live", async () => {
    const api = new FakeVersionApi(history(1, 2, 3), [petPod(0, 2)]);
    const result = await runVersionGc(api, petSet({ spec: { revisionHistoryLimit: 0 } }));
    expect(result.deleted).toEqual(["web-v1"]);
  });

  it("is idempotent against its own results", async () => {
    const api = new FakeVersionApi(history(1, 2, 3, 4, 5));
    const ps = petSet({ status: status(5), spec: { revisionHistoryLimit: 2 } });
    await runVersionGc(api, ps);
    const again = new FakeVersionApi(
      api.remaining().map((name) => version(Number(name.slice("web-v".length)))),
    );
    expect((await runVersionGc(again, ps)).deleted).toEqual([]);
  });
});

describe("PodLike", () => {
  it("accepts client-node's V1Pod as the informer cache holds it", () => {
    const v1: V1Pod = {
      metadata: { name: "web-0", labels: { [Labels.petSet]: "web", [Labels.version]: "1" } },
    };
    const pods: readonly PodLike[] = [v1];
    expect(pods[0]?.metadata?.labels?.[Labels.version]).toBe("1");
  });
});

describe("apiErrorReason", () => {
  it.each<[string, unknown, string | undefined]>([
    ["client-node ApiException 404", { code: 404, body: "{}" }, "NotFound"],
    ["Status body as string", { body: '{"kind":"Status","reason":"NotFound","code":404}' }, "NotFound"],
    ["Status object", { kind: "Status", reason: "Conflict", code: 409 }, "Conflict"],
    ["statusCode", { statusCode: 409 }, "Conflict"],
    ["other status", { code: 500, body: { reason: "InternalError" } }, undefined],
    ["unparseable body", { body: "<html>" }, undefined],
    ["plain error", new Error("boom"), undefined],
    ["not an object", "NotFound", undefined],
  ])("%s", (_name, error, expected) => {
    expect(apiErrorReason(error)).toBe(expected);
  });
});

describe("runVersionGc in waves", () => {
  it("sends a wave of deletes only after the older wave finished", async () => {
    const numbers = Array.from({ length: 40 }, (_, i) => i + 1);
    const api = new FakeVersionApi(history(...numbers), [petPod(0, 40)]);
    let inFlight = 0;
    let most = 0;
    const finished: number[] = [];
    const started: Array<{ n: number; finishedBefore: number[] }> = [];
    const deps: VersionGcDeps = {
      listVersions: () => api.listVersions(),
      listPods: () => api.listPods(),
      async deleteVersion(ns, name, uid, rv) {
        const n = Number(name.slice("web-v".length));
        started.push({ n, finishedBefore: [...finished] });
        inFlight++;
        most = Math.max(most, inFlight);
        // Finish in reverse order within a wave: the API gives no order inside one.
        await new Promise((r) => setTimeout(r, 40 - n));
        await api.deleteVersion(ns, name, uid, rv);
        inFlight--;
        finished.push(n);
      },
    };
    const result = await runVersionGc(
      deps,
      petSet({ status: status(40), spec: { revisionHistoryLimit: 0 } }),
    );
    expect(result.deleted).toEqual(numbers.slice(0, 39).map((n) => `web-v${n}`));
    expect(most).toBe(GC_DELETES_IN_FLIGHT);
    for (const { n, finishedBefore } of started) {
      // Everything more than one wave older is gone before this delete is sent.
      const olderWaves = numbers.filter(
        (m) => m <= Math.floor((n - 1) / GC_DELETES_IN_FLIGHT) * GC_DELETES_IN_FLIGHT,
      );
      expect(finishedBefore).toEqual(expect.arrayContaining(olderWaves));
    }
  });

  it("splits a list into waves in order", () => {
    expect(waves([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(waves([], 16)).toEqual([]);
  });
});
