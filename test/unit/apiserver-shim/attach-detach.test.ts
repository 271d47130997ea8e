/**
 * The embedded attach/detach controller: the pure plan table-style, then the controller on a
 * shim core (VolumeAttachments created attached, kept on a lost node, removed from a live one).
 */
import { describe, expect, it } from "vitest";
import {
  attachmentName,
  MaxWaitForUnmountMs,
  OutOfServiceTaint,
  planAttachments,
  podTerminated,
} from "../../../src/apiserver-shim/controllers/attach-detach-plan.js";
import { deleteObject } from "../../../src/apiserver-shim/registry/deletion.js";
import type { KubeObject } from "../../../src/apiserver-shim/types.js";
import { testCore } from "./fixtures.js";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const ATTACHER = "petset.dev/simulated-kubelet";
type Obj = Record<string, unknown>;

const obj = (kind: string, name: string, rest: Obj = {}, namespace?: string): KubeObject => ({
  apiVersion: "v1",
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, resourceVersion: "1" },
  ...rest,
});
const pod = (name: string, node: string, claim: string, extra: Obj = {}) =>
  obj(
    "Pod",
    name,
    {
      spec: { nodeName: node, volumes: [{ name: "data", persistentVolumeClaim: { claimName: claim } }] },
      status: { phase: "Running", containerStatuses: [{ name: "app", state: { running: {} } }] },
      ...extra,
    },
    "ns",
  );
const claim = (name: string, volume: string) =>
  obj("PersistentVolumeClaim", name, { spec: { volumeName: volume } }, "ns");
const volume = (name: string, accessModes = ["ReadWriteOnce"]) =>
  obj("PersistentVolume", name, { spec: { accessModes } });
const node = (name: string, ready: string, taints: Obj[] = []) =>
  obj("Node", name, { spec: { taints }, status: { conditions: [{ type: "Ready", status: ready }] } });
const va = (pv: string, nodeName: string) =>
  obj("VolumeAttachment", attachmentName(pv, ATTACHER, nodeName), {
    spec: { attacher: ATTACHER, nodeName, source: { persistentVolumeName: pv } },
    status: { attached: true },
  });

function plan(o: {
  pods?: KubeObject[];
  nodes?: KubeObject[];
  attachments?: KubeObject[];
  volumes?: KubeObject[];
  wanted?: [string, number][];
  now?: number;
}) {
  const vols = o.volumes ?? [volume("pv-a")];
  return planAttachments({
    pods: o.pods ?? [],
    claims: new Map([["ns/data-0", claim("data-0", "pv-a")]]),
    volumes: new Map(vols.map((v) => [v.metadata.name!, v])),
    nodes: new Map((o.nodes ?? [node("n0", "True"), node("n1", "True")]).map((n) => [n.metadata.name!, n])),
    attachments: o.attachments ?? [],
    detachWantedAt: new Map(o.wanted ?? []),
    defaultAttacher: ATTACHER,
    now: o.now ?? T0,
  });
}

describe("planAttachments", () => {
  it("attaches the bound claim of a scheduled pod, under the CSI attacher's name", () => {
    const p = plan({ pods: [pod("web-0", "n0", "data-0")] });
    expect(p.create).toEqual([
      { name: attachmentName("pv-a", ATTACHER, "n0"), attacher: ATTACHER, volume: "pv-a", node: "n0" },
    ]);
    expect(p.delete).toEqual([]);
  });

  it("a CSI volume uses its driver and volume handle", () => {
    const csi = obj("PersistentVolume", "pv-a", {
      spec: { csi: { driver: "csi.petset.dev", volumeHandle: "h1" } },
    });
    const p = plan({ pods: [pod("web-0", "n0", "data-0")], volumes: [csi] });
    expect(p.create[0]).toMatchObject({
      name: attachmentName("h1", "csi.petset.dev", "n0"),
      attacher: "csi.petset.dev",
    });
  });

  it("nothing for an unscheduled pod, an unbound claim, or an attachment that exists", () => {
    expect(plan({ pods: [pod("web-0", "", "data-0")] }).create).toEqual([]);
    expect(plan({ pods: [pod("web-0", "n0", "other")] }).create).toEqual([]);
    expect(plan({ pods: [pod("web-0", "n0", "data-0")], attachments: [va("pv-a", "n0")] })).toMatchObject({
      create: [],
      delete: [],
    });
  });

  it("detaches at once from a Ready node once no pod needs it (pod gone or terminated)", () => {
    expect(plan({ attachments: [va("pv-a", "n0")] }).delete).toEqual([
      attachmentName("pv-a", ATTACHER, "n0"),
    ]);
    const done = pod("web-0", "n0", "data-0", { status: { phase: "Succeeded" } });
    expect(plan({ pods: [done], attachments: [va("pv-a", "n0")] }).delete).toHaveLength(1);
  });

  it("issue 27: a lost node's attachment stays (held) until out-of-service or maxWaitForUnmountDuration", () => {
    const lost = node("n0", "Unknown");
    const held = plan({ nodes: [lost], attachments: [va("pv-a", "n0")] });
    expect(held.delete).toEqual([]);
    expect(held.checkAt).toBe(T0 + MaxWaitForUnmountMs + 1);
    const name = attachmentName("pv-a", ATTACHER, "n0");
    const later = plan({
      nodes: [lost],
      attachments: [va("pv-a", "n0")],
      wanted: [[name, T0]],
      now: T0 + MaxWaitForUnmountMs,
    });
    expect(later.delete).toEqual([]);
    const timedOut = plan({
      nodes: [lost],
      attachments: [va("pv-a", "n0")],
      wanted: [[name, T0]],
      now: T0 + MaxWaitForUnmountMs + 1,
    });
    expect(timedOut.delete).toEqual([name]);
    const fenced = node("n0", "Unknown", [
      { key: OutOfServiceTaint, value: "nodeshutdown", effect: "NoExecute" },
    ]);
    expect(plan({ nodes: [fenced], attachments: [va("pv-a", "n0")] }).delete).toEqual([name]);
    expect(plan({ nodes: [], attachments: [va("pv-a", "n0")] }).delete).toEqual([name]); // node gone
  });

  it("issue 27: a ReadWriteOnce volume still attached to a lost node is not attached elsewhere (Multi-Attach error)", () => {
    const p = plan({
      pods: [pod("web-0", "n1", "data-0")],
      nodes: [node("n0", "Unknown"), node("n1", "True")],
      attachments: [va("pv-a", "n0")],
    });
    expect(p.create).toEqual([]);
    expect(p.multiAttach.map((m) => m.message)).toEqual([
      'Multi-Attach error for volume "pv-a" Volume is already exclusively attached to one node and can\'t be attached to another',
    ]);
    const rwx = plan({
      pods: [pod("web-0", "n1", "data-0")],
      nodes: [node("n0", "Unknown"), node("n1", "True")],
      attachments: [va("pv-a", "n0")],
      volumes: [volume("pv-a", ["ReadWriteMany"])],
    });
    expect(rwx.create.map((c) => c.node)).toEqual(["n1"]);
  });

  it("a Terminating pod whose containers still run (a lost node's) keeps its volume; one with none running does not", () => {
    const deleting = { metadata: { deletionTimestamp: "2025-01-01T00:00:00Z" } };
    const frozen = pod("web-0", "n0", "data-0");
    frozen.metadata = { ...frozen.metadata, ...deleting.metadata };
    expect(podTerminated(frozen)).toBe(false);
    const stopped = pod("web-0", "n0", "data-0", {
      status: {
        phase: "Running",
        containerStatuses: [{ name: "app", state: { terminated: { exitCode: 0 } } }],
      },
    });
    stopped.metadata = { ...stopped.metadata, ...deleting.metadata };
    expect(podTerminated(stopped)).toBe(true);
  });
});

describe("AttachDetachController (embedded)", () => {
  it("issue 27: creates an attached VolumeAttachment for a pod's claim, keeps it while the node is lost, detaches from a live node", () => {
    const t = testCore();
    const def = (g: string, r: string) => t.def(g, "v1", r);
    const status = (d: ReturnType<typeof def>, o: KubeObject, s: Obj) =>
      t.store.commitUpdate(d, o, { ...o, status: s }, t.ctx({ subresource: "status" }));
    const n0 = t.store.create(def("", "nodes"), undefined, { metadata: { name: "n0" } }, t.ctx());
    status(def("", "nodes"), n0, { conditions: [{ type: "Ready", status: "True" }] });
    t.store.create(
      def("", "persistentvolumes"),
      undefined,
      {
        metadata: { name: "pv-a" },
        spec: { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" }, hostPath: { path: "/x" } },
      },
      t.ctx(),
    );
    const c = t.store.create(
      def("", "persistentvolumeclaims"),
      "default",
      {
        metadata: { name: "data-0" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
      t.ctx(),
    );
    t.store.commitUpdate(
      def("", "persistentvolumeclaims"),
      c,
      { ...c, spec: { ...(c.spec as Obj), volumeName: "pv-a" } },
      t.ctx(),
    );
    t.store.create(
      def("", "pods"),
      "default",
      {
        metadata: { name: "web-0" },
        spec: {
          nodeName: "n0",
          containers: [{ name: "app", image: "nginx" }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-0" } }],
        },
      },
      t.ctx(),
    );
    t.settle();
    const vas = () => t.objects.list("storage.k8s.io/volumeattachments");
    expect(vas().map((v) => [(v.spec as Obj).nodeName, (v.status as Obj).attached])).toEqual([["n0", true]]);
    // The node is lost, the pod force-deleted: the attachment stays.
    const cur = t.store.peek(def("", "nodes"), undefined, "n0")!;
    status(def("", "nodes"), cur, { conditions: [{ type: "Ready", status: "Unknown" }] });
    deleteObject(t.store, def("", "pods"), "default", "web-0", { gracePeriodSeconds: 0 }, t.ctx());
    t.settle();
    expect(vas()).toHaveLength(1);
    // Back and Ready: nothing needs it, it is detached.
    const back = t.store.peek(def("", "nodes"), undefined, "n0")!;
    status(def("", "nodes"), back, { conditions: [{ type: "Ready", status: "True" }] });
    t.settle();
    expect(vas()).toHaveLength(0);
  });
});
