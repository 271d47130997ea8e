/**
 * Writes that ask for a metadata answer (src/controller/metadata-answer.ts) against a real API
 * (both backends): the server answers a create, a patch and a delete with the object's
 * metadata only (PartialObjectMetadata), a pod's and a PetSet's alike, while the write itself
 * lands whole; an error answer is the same Status as without the header. The controller reads
 * a created pod's uid and a patched object's resourceVersion from these answers.
 */
import { CoreV1Api, CustomObjectsApi, PatchStrategy } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP, PETSET_PLURAL, VERSION } from "../../src/api/index.js";
import { statusCode } from "../../src/controller/api-errors.js";
import { metadataAnswer, metadataAnswerPatch } from "../../src/controller/metadata-answer.js";
import { startTestCluster, type TestCluster } from "../support/cluster.js";
import { petSetManifest, TEST_MS } from "./rollout-support.js";

let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;
let custom: CustomObjectsApi;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.namespace("metadata-answer");
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await cluster?.stop();
});

/** What client-node hands back, as plain data (its model classes hold only what was sent). */
const plain = (o: unknown) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

describe("metadata answers", () => {
  it(
    "a pod's create, patch and delete are answered with its metadata only, and land whole",
    async () => {
      const name = "meta-answer-0";
      const created = await core.createNamespacedPod(
        {
          namespace,
          body: {
            metadata: { name, labels: { app: "meta" } },
            spec: { containers: [{ name: "app", image: "nginx:1.26" }] },
          },
        },
        metadataAnswer(),
      );
      expect(created.metadata?.uid).toMatch(/.+/);
      expect(created.metadata?.name).toBe(name);
      expect(plain(created).spec).toBeUndefined();
      expect(plain(created).status).toBeUndefined();
      // The pod itself is whole.
      const read = await core.readNamespacedPod({ name, namespace });
      expect(read.spec?.containers[0]?.image).toBe("nginx:1.26");

      // No resourceVersion here: on kube-apiserver the scheduler and kwok write the pod too.
      const patched = await core.patchNamespacedPod(
        { name, namespace, body: { metadata: { labels: { seen: "yes" } } } },
        metadataAnswerPatch(PatchStrategy.MergePatch),
      );
      expect(patched.metadata?.labels?.seen).toBe("yes");
      expect(patched.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
      expect(plain(patched).spec).toBeUndefined();

      // An error is answered as before: a Status the controller reads the code of (the
      // create's resourceVersion is stale since the patch).
      const stale = await core
        .patchNamespacedPod(
          {
            name,
            namespace,
            body: { metadata: { resourceVersion: created.metadata?.resourceVersion, labels: { x: "y" } } },
          },
          metadataAnswerPatch(PatchStrategy.MergePatch),
        )
        .then(
          () => 200,
          (err: unknown) => statusCode(err),
        );
      expect(stale).toBe(409);

      const deleted = await core.deleteNamespacedPod(
        { name, namespace, body: { preconditions: { uid: created.metadata?.uid ?? "" } } },
        metadataAnswer(),
      );
      expect(deleted.metadata?.uid).toBe(created.metadata?.uid);
      expect(plain(deleted).spec).toBeUndefined();
    },
    TEST_MS,
  );

  it(
    "a PetSet's create and patch are answered with its metadata only",
    async () => {
      const name = "meta-answer";
      const created = plain(
        await custom.createNamespacedCustomObject(
          { group: GROUP, version: VERSION, plural: PETSET_PLURAL, namespace, body: petSetManifest(name) },
          metadataAnswer(),
        ),
      );
      const meta = created.metadata as { uid?: string };
      expect(meta.uid).toMatch(/.+/);
      expect(created.spec).toBeUndefined();
      const patched = plain(
        await custom.patchNamespacedCustomObject(
          {
            group: GROUP,
            version: VERSION,
            plural: PETSET_PLURAL,
            namespace,
            name,
            body: { metadata: { labels: { seen: "yes" } } },
          },
          metadataAnswerPatch(PatchStrategy.MergePatch),
        ),
      );
      expect(patched.spec).toBeUndefined();
      expect((patched.metadata as { labels?: Record<string, string> }).labels?.seen).toBe("yes");
      const read = plain(
        await custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: PETSET_PLURAL,
          namespace,
          name,
        }),
      );
      expect((read.metadata as { labels?: Record<string, string> }).labels?.seen).toBe("yes");
      expect(read.spec).toBeDefined();
    },
    TEST_MS,
  );
});
