/**
 * Least privilege, checked (docs/operations.md "RBAC"): on the real backend, what the
 * controller's identity may do (`kubectl auth can-i --list`, RBAC from deploy/rbac.yaml) is
 * exactly the documented set plus what Kubernetes grants every authenticated user: no
 * wildcard, no Secrets; cluster-scoped: StorageClasses (read), Nodes (read, and patch for the
 * opt-in out-of-service taint) and VolumeAttachments (read, delete after a fence). The embedded server
 * has no RBAC, so this runs on the real backend only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, startTestCluster, type TestCluster } from "../support/cluster.js";

/** deploy/rbac.yaml, as `kubectl auth can-i --list` prints it: resource -> verbs. */
const DOCUMENTED: Record<string, string[]> = {
  "petsets.petset.dev": ["get", "list", "watch", "update", "patch"],
  "petsets.petset.dev/status": ["get", "update", "patch"],
  "petsets.petset.dev/scale": ["get", "update", "patch"],
  "petsets.petset.dev/finalizers": ["update"],
  "petsetversions.petset.dev": ["get", "list", "watch", "create", "delete", "update", "patch"],
  "petsetversions.petset.dev/status": ["get", "update", "patch"],
  pods: ["get", "list", "watch", "create", "delete", "update", "patch"],
  "pods/exec": ["create", "get"],
  "pods/resize": ["patch"],
  "jobs.batch": ["get", "list", "watch", "create", "delete"],
  persistentvolumeclaims: ["get", "list", "watch", "create", "delete", "update", "patch"],
  events: ["create", "patch", "update"],
  "events.events.k8s.io": ["create", "patch", "update"],
  "leases.coordination.k8s.io": ["get", "list", "watch", "create", "update", "patch"],
  // Claims that follow versions: is the claim's class expandable (docs/volumes.md).
  "storageclasses.storage.k8s.io": ["get", "list", "watch"],
  // Lost nodes (docs/failover.md): node Ready conditions, the out-of-service taint, attachments.
  nodes: ["get", "list", "watch", "patch"],
  "volumeattachments.storage.k8s.io": ["get", "list", "delete"],
  // Its own two CRDs by name (resourceNames), read by the start-up check (crd-compat.ts).
  "customresourcedefinitions.apiextensions.k8s.io": ["get"],
};
/** What system:basic-user grants every authenticated user. */
const EVERYONE = [
  "selfsubjectreviews.authentication.k8s.io",
  "selfsubjectaccessreviews.authorization.k8s.io",
  "selfsubjectrulesreviews.authorization.k8s.io",
];

describe.skipIf(backendFromEnv() !== "real")("the controller's permissions on a real kube-apiserver", () => {
  let cluster: TestCluster;
  let ns: string;
  beforeAll(async () => {
    cluster = await startTestCluster();
    ns = await cluster.namespace("rbac");
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("are exactly the documented set: no wildcard, no secrets", async () => {
    const r = await cluster.kubectl(["auth", "can-i", "--list", "--as", "petset-controller", "-n", ns]);
    const granted: Record<string, string[]> = {};
    for (const line of r.stdout.split("\n").slice(1)) {
      const m = /^(\S+)\s+\[\]\s+\[[^\]]*\]\s+\[([^\]]*)\]/.exec(line);
      if (m?.[1] === undefined) continue;
      granted[m[1]] = (m[2] ?? "").split(" ").filter((v) => v !== "");
    }
    for (const everyone of EVERYONE) delete granted[everyone];
    expect(granted).toEqual(DOCUMENTED);
    expect(r.stdout).not.toMatch(/^\*/m);
    for (const verb of ["get", "list", "watch"]) {
      const secrets = await cluster.kubectl(
        ["auth", "can-i", verb, "secrets", "--as", "petset-controller", "-n", ns],
        {
          allowFail: true,
        },
      );
      expect(secrets.stdout.trim()).toBe("no");
    }
    // Nodes are read and tainted, never created, updated or deleted.
    for (const verb of ["create", "update", "delete"]) {
      const nodes = await cluster.kubectl(["auth", "can-i", verb, "nodes", "--as", "petset-controller"], {
        allowFail: true,
      });
      expect(nodes.stdout.trim()).toBe("no");
    }
  });
});
