/**
 * Versions as resources, the way a user meets them: `kubectl apply` (client-side and
 * `--server-side`), `kubectl get psv`, `kubectl patch`, `kubectl delete`, against the backend
 * PETSET_TEST_BACKEND names, with the controller running in this process (one per test, on
 * the test's own namespace). Every wait is on a condition (`eventually`), never a sleep.
 */
import { type KubernetesObject, Watch } from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Annotations,
  GROUP,
  Labels,
  parsePetSetVersion,
  VERSION,
  VERSION_PLURAL,
} from "../../src/api/index.js";
import { hashContent } from "../../src/versions/hash.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";
import { type ApplyMode, Env, MANAGER, manifest, stopControllers } from "./user-env.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterEach(async () => {
  await stopControllers();
});
afterAll(async () => {
  await cluster?.stop();
});

describe.each<ApplyMode>(["client-side", "server-side"])("kubectl apply (%s)", (mode) => {
  it("records v1, ignores re-applies, records changes and a Git revert as versions", async () => {
    const env = await Env.start(cluster, `psv-${mode === "client-side" ? "csa" : "ssa"}`);
    const v126 = manifest("web", { image: "nginx:1.26" });
    await env.apply(v126, mode);
    const ps = await env.petSet("web");
    const v1 = await env.waitVersion("web", 1);
    const raw1 = (await env.rawVersions("web"))[0];
    expect(raw1?.metadata?.name).toBe("web-v1");
    expect(v1.metadata.labels).toMatchObject({
      [Labels.petSet]: "web",
      [Labels.version]: "1",
      [Labels.hash]: v1.spec.hash,
    });
    expect(v1.spec.hash).toMatch(/^[0-9a-f]{10}$/);
    expect(v1.spec.hash).toBe(hashContent({ template: ps.spec.template, volumeClaimTemplates: [] }));
    expect(raw1?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "petset.dev/v1alpha1",
        kind: "PetSet",
        name: "web",
        uid: ps.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(v1.spec).toMatchObject({
      petSet: "web",
      version: 1,
      generation: ps.metadata.generation,
      changeCause: "initial version",
      changedBy: MANAGER[mode],
      delta: [],
    });
    expect(v1.spec.rollbackOf).toBeUndefined();
    const firstPods = await env.waitRolledOut("web", 1);
    for (const p of firstPods) expect(p.metadata?.labels?.[Labels.hash]).toBe(v1.spec.hash);

    // The same manifest again: nothing recorded, nothing restarted, and kubectl says so
    // (test/integration/apply-wording.test.ts has the details).
    const uids = await env.podUids("web");
    const generation = (await env.petSet("web")).metadata.generation;
    expect(await env.apply(v126, mode)).toBe(
      mode === "client-side" ? "petset.petset.dev/web unchanged" : "petset.petset.dev/web serverside-applied",
    );
    expect((await env.petSet("web")).metadata.generation).toBe(generation);
    await env.barrier("web");
    expect(await env.numbers("web")).toEqual([1]);
    expect(await env.podUids("web")).toEqual(uids);

    // A new image: web-v2 with the JSON Patch and a derived change-cause.
    await env.apply(manifest("web", { image: "nginx:1.27" }), mode);
    const v2 = await env.waitVersion("web", 2);
    const gen2 = (await env.petSet("web")).metadata.generation;
    expect(v2.spec).toMatchObject({
      version: 2,
      generation: gen2,
      changeCause: "image app: nginx:1.26 -> nginx:1.27",
      changedBy: MANAGER[mode],
      delta: [{ op: "replace", path: "/template/spec/containers/0/image", value: "nginx:1.27" }],
    });
    expect(v2.spec.rollbackOf).toBeUndefined();
    const secondPods = await env.waitRolledOut("web", 2);
    for (const p of secondPods) expect(uids[p.metadata?.name ?? ""]).not.toBe(p.metadata?.uid);

    // `git revert`: the first manifest again is a new version repeating v1's content.
    await env.apply(v126, mode);
    const v3 = await env.waitVersion("web", 3);
    expect(v3.spec).toMatchObject({
      rollbackOf: 1,
      hash: v1.spec.hash,
      changeCause: "image app: nginx:1.27 -> nginx:1.26",
      changedBy: MANAGER[mode],
    });
    const thirdPods = await env.waitRolledOut("web", 3);
    for (const p of thirdPods) {
      expect(p.metadata?.labels?.[Labels.hash]).toBe(v1.spec.hash);
      expect(p.spec?.containers[0]?.image).toBe("nginx:1.26");
    }
    expect(await env.numbers("web")).toEqual([1, 2, 3]);

    // What `kubectl get psv` shows, and `-o wide`.
    const table = await env.getTable(["psv", "-l", `${Labels.petSet}=web`]);
    expect(Object.keys(table[0] ?? {})).toEqual([
      "NAME",
      "PETSET",
      "VERSION",
      "GENERATION",
      "ROLLBACK-OF",
      "CHANGE-CAUSE",
      "AGE",
    ]);
    expect(table.map((r) => [r.NAME, r.PETSET, r.VERSION, r["ROLLBACK-OF"], r["CHANGE-CAUSE"]])).toEqual([
      ["web-v1", "web", "1", "", "initial version"],
      ["web-v2", "web", "2", "", "image app: nginx:1.26 -> nginx:1.27"],
      ["web-v3", "web", "3", "1", "image app: nginx:1.27 -> nginx:1.26"],
    ]);
    expect(table.map((r) => r.GENERATION)).toEqual([v1, v2, v3].map((v) => String(v.spec.generation)));
    const wide = await env.getTable(["psv", "web-v3", "-o", "wide"]);
    expect(Object.keys(wide[0] ?? {}).slice(-2)).toEqual(["HASH", "CHANGED-BY"]);
    expect(wide[0]).toMatchObject({ HASH: v1.spec.hash, "CHANGED-BY": MANAGER[mode] });
  });
});

describe("PetSetVersions", () => {
  it("take a fresh kubernetes.io/change-cause annotation as the change-cause, never a stale one", async () => {
    const env = await Env.start(cluster, "psv-cause");
    await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1 }));
    await env.waitVersion("web", 1);
    const cause = { [Annotations.changeCause]: "upgrade to 1.27 for CVE-2025-0001" };
    await env.apply(manifest("web", { image: "nginx:1.27", replicas: 1, annotations: cause }));
    expect((await env.waitVersion("web", 2)).spec.changeCause).toBe("upgrade to 1.27 for CVE-2025-0001");
    // The annotation stays in Git untouched while the image moves on: not repeated.
    await env.apply(manifest("web", { image: "nginx:1.28", replicas: 1, annotations: cause }));
    expect((await env.waitVersion("web", 3)).spec.changeCause).toBe("image app: nginx:1.27 -> nginx:1.28");
  });

  it("relabel pods that already run a rollback's content instead of restarting them", async () => {
    const env = await Env.start(cluster, "psv-relabel");
    // partition 2 of 2: a new version moves no pod, so v1 pods are still running when v1 returns.
    const held = { updateStrategy: { rollingUpdate: { partition: 2 } } };
    await env.apply(manifest("web", { image: "nginx:1.26", spec: held }));
    await env.waitRolledOut("web", 1);
    const uids = await env.podUids("web");
    await env.apply(manifest("web", { image: "nginx:1.27", spec: held }));
    await env.waitVersion("web", 2);
    await env.apply(manifest("web", { image: "nginx:1.26", spec: held }));
    expect((await env.waitVersion("web", 3)).spec.rollbackOf).toBe(1);
    const pods = await env.waitRolledOut("web", 3);
    expect(await env.podUids("web")).toEqual(uids);
    for (const p of pods) expect(p.status?.containerStatuses?.[0]?.restartCount ?? 0).toBe(0);
  });

  it("have an immutable spec: the API server refuses a change (CEL rule on the CRD)", async () => {
    const env = await Env.start(cluster, "psv-immutable");
    await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1 }));
    await env.waitVersion("web", 1);
    const res = await env.kubectl(
      ["patch", "psv", "web-v1", "--type", "merge", "-p", '{"spec":{"changeCause":"x"}}'],
      { allowFail: true },
    );
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(
      'The PetSetVersion "web-v1" is invalid: spec: Forbidden: ' +
        "spec is immutable: a PetSetVersion records one observed version and never changes",
    );
    expect((await env.versions("web"))[0]?.spec.changeCause).toBe("initial version");
  });

  it("are not made for replicas, paused or updateStrategy changes", async () => {
    const env = await Env.start(cluster, "psv-noversion");
    await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1 }));
    await env.waitRolledOut("web", 1);
    await env.kubectl(["scale", "petset", "web", "--replicas=3"]);
    await env.waitRolledOut("web", 1);
    for (const patch of [
      { spec: { paused: true } },
      { spec: { paused: false } },
      { spec: { updateStrategy: { rollingUpdate: { partition: 1, maxUnavailable: 2 } } } },
      { spec: { minReadySeconds: 1, revisionHistoryLimit: 3 } },
    ]) {
      await env.kubectl(["patch", "petset", "web", "--type=merge", "-p", JSON.stringify(patch)]);
      await env.waitObserved("web");
    }
    await env.kubectl(["scale", "petset", "web", "--replicas=1"]);
    await env.waitRolledOut("web", 1);
    expect(await env.numbers("web")).toEqual([1]);
  });

  it("keep revisionHistoryLimit versions beyond the live ones, deleting the oldest", async () => {
    const env = await Env.start(cluster, "psv-gc");
    const deleted: number[] = [];
    const watch = await new Watch(cluster.kubeConfig).watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${env.ns}/${VERSION_PLURAL}`,
      {},
      (type: string, obj: KubernetesObject) => {
        if (type === "DELETED") deleted.push(parsePetSetVersion(obj).spec.version);
      },
      () => {},
    );
    try {
      for (let minor = 20; minor <= 26; minor++) {
        await env.apply(manifest("web", { image: `nginx:1.${minor}`, replicas: 1 }));
        await env.waitVersion("web", minor - 19);
      }
      await env.waitRolledOut("web", 7);
      expect(await env.numbers("web")).toEqual([1, 2, 3, 4, 5, 6, 7]);
      // One GC run with the lower limit: live (v7) + the 2 newest others; oldest deleted first.
      const limited = { revisionHistoryLimit: 2 };
      await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1, spec: limited }));
      await eventually("history trimmed to v5..v7", async () => {
        const numbers = await env.numbers("web");
        return numbers.join() === "5,6,7" ? numbers : undefined;
      });
      await eventually("four deletions seen", () => (deleted.length === 4 ? deleted : undefined));
      // Oldest first in waves of up to 16 deletes in flight (docs/versions.md): four fit in one wave.
      expect([...deleted].sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    } finally {
      watch.abort();
    }
  });

  it("go with their PetSet, and a new PetSet of the same name never mixes with leftovers", async () => {
    const env = await Env.start(cluster, "psv-owner");
    await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1 }));
    await env.waitVersion("web", 1);
    await env.apply(manifest("web", { image: "nginx:1.27", replicas: 1 }));
    await env.waitVersion("web", 2);
    // Plain cascading delete: the garbage collector removes the versions.
    await env.kubectl(["delete", "petset", "web", "--wait=true"]);
    await eventually("versions of the deleted PetSet collected", async () =>
      (await env.rawVersions("web")).length === 0 ? true : undefined,
    );

    // Again, but a finalizer keeps old web-v1 around (being deleted) while `web` is re-created.
    await env.apply(manifest("web", { image: "nginx:1.26", replicas: 1 }));
    await env.waitVersion("web", 1);
    const oldUid = (await env.petSet("web")).metadata.uid;
    await env.kubectl([
      "patch",
      "psv",
      "web-v1",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["test.petset.dev/hold"]}}',
    ]);
    await env.kubectl(["delete", "petset", "web", "--wait=true"]);
    await eventually("old web-v1 being deleted", async () => {
      const [v] = await env.rawVersions("web");
      return v?.metadata?.deletionTimestamp ? v : undefined;
    });
    await env.apply(manifest("web", { image: "nginx:1.30", replicas: 1 }));
    const fresh = await env.petSet("web");
    const created = await eventually("a version of the new PetSet", async () =>
      (await env.rawVersions("web")).find(
        (v) => v.metadata?.ownerReferences?.[0]?.uid === fresh.metadata.uid,
      ),
    );
    const v = parsePetSetVersion(created);
    expect(v.metadata.name).not.toBe("web-v1");
    expect(v.spec).toMatchObject({ changeCause: "initial version", delta: [] });
    expect(v.spec.rollbackOf).toBeUndefined();
    await env.waitRolledOut("web", v.spec.version);
    const leftover = (await env.rawVersions("web")).find((o) => o.metadata?.name === "web-v1");
    expect(leftover?.metadata?.ownerReferences?.[0]?.uid).toBe(oldUid);
    await env.kubectl(["patch", "psv", "web-v1", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await eventually("leftover web-v1 gone", async () =>
      (await env.rawVersions("web")).some((o) => o.metadata?.name === "web-v1") ? undefined : true,
    );
    expect(await env.numbers("web")).toEqual([v.spec.version]);
  });

  it("survive a controller restart between a change and its version: no duplicate, no gap", async () => {
    const env = await Env.start(cluster, "psv-restart");
    await env.apply(manifest("web", { image: "nginx:1.26" }));
    await env.waitRolledOut("web", 1);
    // Down while two changes land: stopped as a rolling restart of the controller does (the
    // Lease released, so the next one leads at once); the crash below waits out the Lease.
    await env.stopController();
    await env.apply(manifest("web", { image: "nginx:1.27" }));
    await env.apply(manifest("web", { image: "nginx:1.28" }));
    await env.startController();
    const v2 = await env.waitVersion("web", 2);
    expect(v2.spec.changeCause).toBe("image app: nginx:1.26 -> nginx:1.28");
    await env.waitRolledOut("web", 2);
    // And a restart right after a change, while the previous rollout may still run.
    await env.apply(manifest("web", { image: "nginx:1.29" }));
    await env.killController();
    await env.startController();
    await env.waitRolledOut("web", 3);
    await env.barrier("web");
    expect(await env.numbers("web")).toEqual([1, 2, 3]);
    expect((await env.versions("web")).map((x) => x.metadata.name)).toEqual(["web-v1", "web-v2", "web-v3"]);
  });
});
