/**
 * Pets are told (SPEC rule 5), on both backends: every container of every pet gets the
 * projected downward-API volume at /etc/petset (live version, generation, target version,
 * ordinal) unless it mounts something there itself, and the PETSET_* env vars come first so a
 * user variable can use `$(PETSET_ORDINAL)`. None of it is versioned content: the version holds
 * the template as written and an image-only change still patches pods in place.
 *
 * Without a kubelet that runs containers, `$(VAR)` expansion and the files' contents cannot be
 * observed; what the API shows (the pod spec the kubelet would act on) is asserted instead.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvVars, Labels } from "../../src/api/index.js";
import {
  createPetSet,
  expectNoViolations,
  listPods,
  listVersions,
  monitor,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  startRolloutEnv,
  TEST_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;

beforeAll(async () => {
  env = await startRolloutEnv("pets-told");
});

afterAll(async () => {
  await env?.stop();
});

const INFO_FILES = ["petset", "version", "generation", "target-version", "ordinal", "labels", "annotations"];

/** The user's template: a variable built from PETSET_ORDINAL, a sidecar with its own /etc/petset. */
const userTemplate = {
  metadata: { labels: { app: "told" } },
  spec: {
    terminationGracePeriodSeconds: 1,
    volumes: [{ name: "own", emptyDir: {} }],
    containers: [
      {
        name: "app",
        image: "nginx:1.26",
        env: [
          { name: "PEER", value: "told-$(PETSET_ORDINAL).told" },
          { name: "MODE", value: "replica" },
        ],
      },
      { name: "side", image: "busybox:1.36", volumeMounts: [{ name: "own", mountPath: "/etc/petset" }] },
    ],
  },
};

/** Mounts of the template and of petset (a real API server also mounts the ServiceAccount token). */
const ownMounts = (c: V1Container | undefined) =>
  c?.volumeMounts?.filter((m) => !m.name.startsWith("kube-api-access-"));

function expectTold(pod: V1Pod): void {
  const name = pod.metadata?.name;
  const info = pod.spec?.volumes?.find((v) => v.name === "petset-podinfo");
  const items = info?.projected?.sources?.flatMap((s) => s.downwardAPI?.items ?? []) ?? [];
  expect(
    items.map((i) => i.path),
    `${name}: files of /etc/petset`,
  ).toEqual(INFO_FILES);
  expect(items.find((i) => i.path === "target-version")?.fieldRef?.fieldPath).toBe(
    "metadata.annotations['petset.dev/target-version']",
  );
  expect(items.find((i) => i.path === "ordinal")?.fieldRef?.fieldPath).toBe(
    `metadata.labels['${Labels.podIndex}']`,
  );
  const [app, side] = pod.spec?.containers ?? [];
  expect(ownMounts(app), `${name}: app mounts`).toEqual([
    { name: "petset-podinfo", mountPath: "/etc/petset", readOnly: true },
  ]);
  expect(ownMounts(side), `${name}: the sidecar keeps its own /etc/petset`).toEqual([
    { name: "own", mountPath: "/etc/petset" },
  ]);
  for (const c of [app, side]) {
    const names = (c?.env ?? []).map((e) => e.name);
    expect(names.slice(0, 3), `${name}/${c?.name}: injected env first`).toEqual([
      EnvVars.version,
      EnvVars.generation,
      EnvVars.ordinal,
    ]);
  }
  expect(app?.env?.slice(3)).toEqual([
    { name: "PEER", value: "told-$(PETSET_ORDINAL).told" },
    { name: "MODE", value: "replica" },
  ]);
}

describe("pets are told", () => {
  it(
    "mounts /etc/petset and puts PETSET_* first; the version keeps the template as written; in-place updates keep both",
    async () => {
      const m = await monitor(env, "told");
      const manifest = petSetManifest("told", {
        replicas: 2,
        rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" },
      });
      (manifest.spec as Record<string, unknown>).template = userTemplate;
      await createPetSet(env, manifest);
      await waitRolledOut(env, "told", 1);

      const [v1] = await listVersions(env, "told");
      expect(v1?.spec.template.spec.volumes).toEqual([{ name: "own", emptyDir: {} }]);
      expect(JSON.stringify(v1?.spec.template)).not.toMatch(/petset-podinfo|PETSET_VERSION/);
      const before = await listPods(env, "told");
      expect(before.map((p) => p.metadata?.name)).toEqual(["told-0", "told-1"]);
      for (const pod of before) {
        expect(pod.metadata?.labels?.[Labels.hash]).toBe(v1?.spec.hash);
        expectTold(pod);
      }

      // An image-only change: patched in place (same pod uids), the pod-info volume untouched.
      const containers = structuredClone(userTemplate.spec.containers);
      (containers[0] as { image: string }).image = "nginx:1.27";
      await patchPetSet(env, "told", { spec: { template: { spec: { containers } } } });
      await waitRolledOut(env, "told", 2);
      const after = await listPods(env, "told");
      expect(after.map((p) => p.metadata?.uid)).toEqual(before.map((p) => p.metadata?.uid));
      for (const pod of after) {
        expect(pod.spec?.containers[0]?.image).toBe("nginx:1.27");
        expect(pod.metadata?.annotations?.["petset.dev/target-version"]).toBe("2");
        expectTold(pod);
      }
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
