import { describe, expect, it } from "vitest";
import { Annotations, EnvVars, Labels } from "../../../../src/api/index.js";
import { STATE_FORMAT, STATE_FORMAT_ANNOTATION } from "../../../../src/api/state-format.js";
import { buildClaim, buildPod, PodInfoVolume } from "../../../../src/controller/planner/index.js";
import { hashContent } from "../../../../src/versions/hash.js";
import { planVersionSync } from "../../../../src/versions/plan-sync.js";
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

  it("labels and annotates the pod with its set, version, hash, index, generation and the version it started at", () => {
    expect(pod.metadata?.labels).toEqual({
      app: "web",
      [Labels.petSet]: "web",
      [Labels.version]: "4",
      [Labels.hash]: version.spec.hash,
      [Labels.podIndex]: "2",
    });
    expect(pod.metadata?.annotations).toEqual({
      note: "x",
      [Annotations.generation]: "7",
      [Annotations.startedVersion]: "4",
      [STATE_FORMAT_ANNOTATION]: String(STATE_FORMAT),
    });
  });

  it("injects PETSET_* env vars through the downward API into every container and init container", () => {
    // The template's containers have no env of their own: exactly ours, in this order.
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

  it("mounts claims and the projected pod-info volume into every container and init container", () => {
    expect(pod.spec?.volumes).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "data-web-2" } },
      {
        name: PodInfoVolume.name,
        projected: {
          sources: [
            {
              downwardAPI: {
                items: [
                  ["petset", "metadata.labels['petset.dev/petset']"],
                  ["version", "metadata.labels['petset.dev/version']"],
                  ["generation", "metadata.annotations['petset.dev/generation']"],
                  ["target-version", "metadata.annotations['petset.dev/target-version']"],
                  ["ordinal", "metadata.labels['petset.dev/pod-index']"],
                  ["labels", "metadata.labels"],
                  ["annotations", "metadata.annotations"],
                ].map(([path, fieldPath]) => ({ path, fieldRef: { apiVersion: "v1", fieldPath } })),
              },
            },
          ],
        },
      },
    ]);
    for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
      expect(c.volumeMounts, c.name).toEqual([
        { name: PodInfoVolume.name, mountPath: "/etc/petset", readOnly: true },
      ]);
    }
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
    expect(env.find((e) => e.name === EnvVars.ordinal)?.value).toBeUndefined();
  });

  it("puts the injected env first, so a user variable can use $(PETSET_ORDINAL)", () => {
    const v = makeVersion(1, "a", {
      template: template("a", {
        containers: [
          {
            name: "app",
            image: "a",
            env: [
              { name: "PEER", value: "db-$(PETSET_ORDINAL).db" },
              { name: "MODE", value: "primary" },
            ],
          },
        ],
      }),
    });
    const env = buildPod(petSet, v, 3).spec?.containers[0]?.env ?? [];
    expect(env.map((e) => e.name)).toEqual([
      EnvVars.version,
      EnvVars.generation,
      EnvVars.ordinal,
      "PEER",
      "MODE",
    ]);
    expect(env[3]?.value).toBe("db-$(PETSET_ORDINAL).db");
  });

  it.each([
    ["the same path", "/etc/petset"],
    ["the same path with a trailing slash", "/etc/petset/"],
    ["a path below it", "/etc/petset/conf"],
    ["a path above it", "/etc"],
  ])("leaves out our mount in a container that mounts %s, keeps it elsewhere", (_what, mountPath) => {
    const v = makeVersion(1, "a", {
      template: template("a", {
        volumes: [{ name: "mine", configMap: { name: "cm" } }],
        containers: [
          { name: "app", image: "a", volumeMounts: [{ name: "mine", mountPath }] },
          { name: "side", image: "b" },
        ],
      }),
    });
    const spec = buildPod(petSet, v, 0).spec;
    expect(spec?.containers[0]?.volumeMounts).toEqual([{ name: "mine", mountPath }]);
    expect(spec?.containers[1]?.volumeMounts).toEqual([
      { name: PodInfoVolume.name, mountPath: PodInfoVolume.mountPath, readOnly: true },
    ]);
    expect(spec?.volumes?.map((x) => x.name)).toEqual(["mine", PodInfoVolume.name]);
  });

  it("keeps a neighbour path such as /etc/petset-extra apart from ours", () => {
    const v = makeVersion(1, "a", {
      template: template("a", {
        volumes: [{ name: "mine", emptyDir: {} }],
        containers: [
          { name: "app", image: "a", volumeMounts: [{ name: "mine", mountPath: "/etc/petset-extra" }] },
        ],
      }),
    });
    expect(buildPod(petSet, v, 0).spec?.containers[0]?.volumeMounts).toEqual([
      { name: "mine", mountPath: "/etc/petset-extra" },
      { name: PodInfoVolume.name, mountPath: PodInfoVolume.mountPath, readOnly: true },
    ]);
  });

  it("keeps a template volume named petset-podinfo and adds no mount of ours", () => {
    const theirs = { name: PodInfoVolume.name, emptyDir: {} };
    const v = makeVersion(1, "a", {
      template: template("a", {
        volumes: [theirs],
        containers: [
          { name: "app", image: "a", volumeMounts: [{ name: PodInfoVolume.name, mountPath: "/data" }] },
          { name: "side", image: "b" },
        ],
      }),
    });
    const spec = buildPod(petSet, v, 0).spec;
    expect(spec?.volumes).toEqual([theirs]);
    expect(spec?.containers[0]?.volumeMounts).toEqual([{ name: PodInfoVolume.name, mountPath: "/data" }]);
    expect(spec?.containers[1]?.volumeMounts).toBeUndefined();
  });

  it("adds nothing to the versioned content: the hash of the template as written labels the pod", () => {
    const petSetSpec = makePetSet({
      template: template("a", {
        containers: [{ name: "app", image: "a", env: [{ name: "PEER", value: "$(PETSET_ORDINAL)" }] }],
      }),
    });
    const plan = planVersionSync(petSetSpec, []);
    if (plan.action !== "create") throw new Error(`expected a new version, got ${plan.action}`);
    const v = plan.version;
    const built = buildPod(petSetSpec, v, 0);
    expect(built.metadata?.labels?.[Labels.hash]).toBe(v.spec.hash);
    expect(v.spec.template).toEqual(petSetSpec.spec.template);
    expect(hashContent({ template: v.spec.template, volumeClaimTemplates: [] })).toBe(v.spec.hash);
    // Building pods never writes the injected parts back into the version.
    expect(JSON.stringify(v.spec)).not.toContain(PodInfoVolume.name);
    expect(v.spec.template.spec.containers[0]?.env).toEqual([{ name: "PEER", value: "$(PETSET_ORDINAL)" }]);
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
