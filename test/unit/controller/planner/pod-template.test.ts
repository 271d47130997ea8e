import { describe, expect, it } from "vitest";
import { Annotations, EnvVars, Labels } from "../../../../src/api/index.js";
import { buildClaim, buildPod, PodInfoVolume } from "../../../../src/controller/planner/index.js";
import { makePetSet, makeVersion, template } from "./fixtures.js";

describe("buildPod", () => {
  const vct = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }];
  const version = makeVersion(4, "app:4", {
    generation: 7,
    volumeClaimTemplates: vct,
    template: {
      ...template("app:4", { initContainers: [{ name: "init", image: "busybox" }] }),
      metadata: { labels: { app: "web" }, annotations: { note: "x" } },
    },
  });
  const petSet = makePetSet({ serviceName: "web-svc" });
  const pod = buildPod(petSet, version, 2);

  it("names the pod and sets its identity", () => {
    expect(pod.metadata?.name).toBe("web-2");
    expect(pod.metadata?.namespace).toBe("default");
    expect(pod.spec?.hostname).toBe("web-2");
    expect(pod.spec?.subdomain).toBe("web-svc");
  });

  it("labels and annotates the pod with its set, version, hash, index and generation", () => {
    expect(pod.metadata?.labels).toEqual({
      app: "web",
      [Labels.petSet]: "web",
      [Labels.version]: "4",
      [Labels.hash]: version.spec.hash,
      [Labels.podIndex]: "2",
    });
    expect(pod.metadata?.annotations).toEqual({ note: "x", [Annotations.generation]: "7" });
  });

  it("injects PETSET_* env vars through the downward API into every container and init container", () => {
    for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
      expect(c.env).toEqual([
        {
          name: EnvVars.version,
          valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels['petset.dev/version']" } },
        },
        {
          name: EnvVars.generation,
          valueFrom: {
            fieldRef: { apiVersion: "v1", fieldPath: "metadata.annotations['petset.dev/generation']" },
          },
        },
        {
          name: EnvVars.ordinal,
          valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.labels['petset.dev/pod-index']" } },
        },
      ]);
    }
  });

  it("mounts claims and the pod-info volume", () => {
    expect(pod.spec?.volumes).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "data-web-2" } },
      expect.objectContaining({ name: PodInfoVolume.name, downwardAPI: expect.anything() }),
    ]);
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([
      { name: PodInfoVolume.name, mountPath: PodInfoVolume.mountPath, readOnly: true },
    ]);
  });

  it("is owned by the PetSet as its controller", () => {
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "petset.dev/v1alpha1",
        kind: "PetSet",
        name: "web",
        uid: "set-uid",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it("is pure: same input, same pod, input untouched", () => {
    const before = structuredClone(version);
    expect(buildPod(petSet, version, 2)).toEqual(pod);
    expect(version).toEqual(before);
  });

  it("replaces user env vars of the same name", () => {
    const v = makeVersion(1, "a", {
      template: template("a", {
        containers: [{ name: "app", image: "a", env: [{ name: EnvVars.ordinal, value: "9" }] }],
      }),
    });
    const env = buildPod(petSet, v, 0).spec?.containers[0]?.env ?? [];
    expect(env.filter((e) => e.name === EnvVars.ordinal)).toHaveLength(1);
  });
});

describe("buildClaim", () => {
  const t = { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } };
  it("names the claim <claim>-<set>-<ordinal> and labels it", () => {
    const claim = buildClaim(makePetSet(), t, 3);
    expect(claim.metadata?.name).toBe("data-web-3");
    expect(claim.metadata?.labels).toMatchObject({
      app: "web",
      [Labels.petSet]: "web",
      [Labels.podIndex]: "3",
    });
    expect(claim.metadata?.ownerReferences).toBeUndefined();
    expect(claim.spec).toEqual({ accessModes: ["ReadWriteOnce"] });
  });
  it("is owned by the PetSet when whenDeleted=Delete", () => {
    const claim = buildClaim(
      makePetSet({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete" } }),
      t,
      0,
    );
    expect(claim.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "PetSet", name: "web" });
  });
});
