/**
 * PodControl's preconditions (SPEC rule 7), as one contract run against the embedded API
 * server on loopback (real HTTP, the real PodControl) and against the fake world's PodControl
 * (test/unit/controller/fake-world.ts), so the fake the sync tests lean on refuses what the API
 * server refuses. Every write decided on a read carries that read: a stale resourceVersion or
 * another incarnation's uid is refused and leaves the pod as it was. Dropping a precondition in
 * pod-control.ts makes the stale write land, and these cases fail.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1OwnerReference,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, startApiServer } from "../../../src/apiserver-shim/index.js";
import { statusCode } from "../../../src/controller/api-errors.js";
import { createPodControl, type PodControl } from "../../../src/controller/pod-control.js";
import { noWriteCounter } from "../../../src/controller/write-counter.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { FakeWorld } from "./fake-world.js";

let server: ApiServer;
let kubeConfig: KubeConfig;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-podcontrol-"));
  server = await startApiServer({});
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  kubeConfig = loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Backend {
  pods: PodControl;
  /** Someone else writes the pod (a new resourceVersion). */
  touch(name: string): Promise<void>;
  /** An object that exists, to own the pod (a garbage collector keeps the pod then). */
  owner(): Promise<V1OwnerReference>;
}

const backends: { name: string; make(): Backend }[] = [
  {
    name: "the embedded API server",
    make() {
      const core = kubeConfig.makeApiClient(CoreV1Api);
      return {
        pods: createPodControl(kubeConfig, noWriteCounter),
        async touch(name) {
          await core.patchNamespacedPod(
            {
              name,
              namespace: "default",
              body: { metadata: { annotations: { touched: String(Math.random()) } } },
            },
            setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
          );
        },
        async owner() {
          const cm = await core.createNamespacedConfigMap({
            namespace: "default",
            body: { metadata: { name: `owner-${++counter}` } },
          });
          return {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: cm.metadata?.name ?? "",
            uid: cm.metadata?.uid ?? "",
            controller: true,
          };
        },
      };
    },
  },
  {
    name: "the fake world",
    make() {
      const world = new FakeWorld();
      return {
        pods: world.context().pods,
        async touch(name) {
          world.bumpPod(name, "default");
        },
        async owner() {
          return { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "owner-uid", controller: true };
        },
      };
    },
  },
];

let counter = 0;
const pod = (name: string): V1Pod => ({
  metadata: { name, labels: { app: "web" } },
  spec: { containers: [{ name: "app", image: "nginx:1.26" }] },
});

async function refused(write: Promise<unknown>): Promise<number | undefined> {
  return write.then(
    () => undefined,
    (err: unknown) => statusCode(err) ?? -1,
  );
}

for (const backend of backends) {
  describe(`PodControl preconditions against ${backend.name}`, () => {
    /** A pod read at `rv`, then changed by someone else. */
    async function staleRead(b: Backend) {
      const name = `pc-${++counter}`;
      await b.pods.create("default", pod(name));
      const read = await b.pods.get("default", name);
      const uid = read?.metadata?.uid ?? "";
      const rv = read?.metadata?.resourceVersion ?? "";
      await b.touch(name);
      return { name, uid, rv };
    }

    it("delete: another uid or a stale resourceVersion is refused (409); as read it deletes", async () => {
      const b = backend.make();
      const { name, uid, rv } = await staleRead(b);
      expect(await refused(b.pods.delete("default", name, "another-uid"))).toBe(409);
      expect(await refused(b.pods.delete("default", name, uid, rv))).toBe(409);
      expect(await b.pods.get("default", name)).toBeDefined();
      const current = await b.pods.get("default", name);
      await expect(b.pods.delete("default", name, uid, current?.metadata?.resourceVersion)).resolves.toEqual({
        deleted: true,
      });
    });

    it("patch and patchImages: a stale resourceVersion is refused (409) and changes nothing", async () => {
      const b = backend.make();
      const { name, rv } = await staleRead(b);
      expect(
        await refused(b.pods.patch("default", name, rv, { metadata: { labels: { moved: "yes" } } })),
      ).toBe(409);
      expect(
        await refused(
          b.pods.patchImages("default", name, rv, [{ container: "app", image: "nginx:1.27" }], {
            labels: { moved: "yes" },
            annotations: {},
          }),
        ),
      ).toBe(409);
      const after = await b.pods.get("default", name);
      expect(after?.metadata?.labels?.moved).toBeUndefined();
      expect(after?.spec?.containers?.[0]?.image).toBe("nginx:1.26");
    });

    it("setOwnerReferences: another uid (409/422) or a stale resourceVersion (409) is refused", async () => {
      const b = backend.make();
      const { name, uid, rv } = await staleRead(b);
      const ref = await b.owner();
      const owner = [ref];
      const current = await b.pods.get("default", name);
      const currentRv = current?.metadata?.resourceVersion ?? "";
      expect([409, 422]).toContain(
        await refused(b.pods.setOwnerReferences("default", name, "another-uid", currentRv, owner)),
      );
      expect(await refused(b.pods.setOwnerReferences("default", name, uid, rv, owner))).toBe(409);
      expect((await b.pods.get("default", name))?.metadata?.ownerReferences ?? []).toEqual([]);
      await b.pods.setOwnerReferences("default", name, uid, currentRv, owner);
      expect((await b.pods.get("default", name))?.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([
        ref.uid,
      ]);
    });

    it("create: a taken name is refused with AlreadyExists (409)", async () => {
      const b = backend.make();
      const name = `pc-${++counter}`;
      await b.pods.create("default", pod(name));
      expect(await refused(b.pods.create("default", pod(name)))).toBe(409);
    });
  });
}
