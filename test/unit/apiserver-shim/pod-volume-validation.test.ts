/** The messages are kube-apiserver 1.33's for the same pods (checked with kubectl create --dry-run=server). */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/apiserver-shim/errors.js";
import { buildPod } from "../../../src/controller/planner/index.js";
import { makePetSet, makeVersion, template } from "../controller/planner/fixtures.js";
import { testCore } from "./fixtures.js";

function invalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError && e.code === 422) return e.message;
    throw e;
  }
  throw new Error("expected 422 Invalid");
}

describe("pod volume validation", () => {
  const core = testCore();
  const pods = core.def("", "v1", "pods");
  const create = (name: string, spec: Record<string, unknown>) =>
    core.store.create(pods, "default", { metadata: { name }, spec }, core.ctx());

  it("accepts the pod a PetSet builds: projected downward-API volume, claims, user volumes", () => {
    const version = makeVersion(1, "app:1", {
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: {} }],
      template: template("app:1", {
        volumes: [{ name: "conf", configMap: { name: "c" } }],
        containers: [
          {
            name: "app",
            image: "app:1",
            env: [{ name: "PEER", value: "db-$(PETSET_ORDINAL)" }],
            volumeMounts: [
              { name: "conf", mountPath: "/etc/conf" },
              { name: "data", mountPath: "/data" },
            ],
          },
        ],
      }),
    });
    const pod = buildPod(makePetSet(), version, 0);
    const stored = create("web-0", pod.spec as unknown as Record<string, unknown>);
    const spec = stored.spec as { volumes: { name: string; projected?: unknown }[] };
    expect(spec.volumes.map((v) => v.name)).toEqual(["conf", "data", "petset-podinfo"]);
    expect(spec.volumes[2]?.projected).toBeDefined();
  });

  it("refuses a mount of a missing volume and a mount path used twice, as kube does", () => {
    expect(
      invalidMessage(() =>
        create("p1", {
          volumes: [{ name: "a", emptyDir: {} }],
          containers: [
            {
              name: "c",
              image: "x",
              volumeMounts: [
                { name: "a", mountPath: "/etc/petset" },
                { name: "b", mountPath: "/etc/petset" },
              ],
            },
          ],
        }),
      ),
    ).toBe(
      'Pod "p1" is invalid: [spec.containers[0].volumeMounts[1].name: Not found: "b", spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/etc/petset": must be unique]',
    );
  });

  it("refuses two volumes of one name and a downward-API field the kubelet cannot write", () => {
    expect(
      invalidMessage(() =>
        create("p2", {
          volumes: [
            { name: "info", emptyDir: {} },
            {
              name: "info",
              projected: {
                sources: [
                  { downwardAPI: { items: [{ path: "node", fieldRef: { fieldPath: "spec.nodeName" } }] } },
                ],
              },
            },
          ],
          containers: [{ name: "c", image: "x" }],
        }),
      ),
    ).toBe(
      'Pod "p2" is invalid: [spec.volumes[1].projected.sources[0].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid", spec.volumes[1].name: Duplicate value: "info"]',
    );
  });

  it("refuses an absolute file path and an unknown field; a mount of that broken volume is Not found", () => {
    expect(
      invalidMessage(() =>
        create("p3", {
          volumes: [
            {
              name: "info",
              downwardAPI: {
                items: [
                  { path: "/abs", fieldRef: { fieldPath: "spec.foo" } },
                  { path: "ok", fieldRef: { fieldPath: "metadata.labels['a']" } },
                ],
              },
            },
          ],
          containers: [{ name: "c", image: "x", volumeMounts: [{ name: "info", mountPath: "/x" }] }],
        }),
      ),
    ).toBe(
      'Pod "p3" is invalid: [spec.volumes[0].downwardAPI.path: Invalid value: "/abs": must be a relative path, spec.volumes[0].downwardAPI.fieldRef.fieldPath: Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo, spec.containers[0].volumeMounts[0].name: Not found: "info"]',
    );
  });
});
