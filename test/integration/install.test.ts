/**
 * The install as a user runs it: `kubectl kustomize deploy/` (what `kubectl apply -k deploy/`
 * applies), checked for what a production controller needs, then applied with
 * `--dry-run=server` so the API server validates every object (schemas, RBAC rules,
 * PodDisruptionBudget, Pod Security warnings) without installing anything.
 *
 * The objects go into this test's namespace through an overlay (`namespace:`), the way a
 * user moves the install: the shared cluster's petset-system is not touched, and a server dry
 * run of namespaced objects needs a namespace that exists.
 *
 * Backends: the real kube-apiserver serves every kind of the install. The embedded server
 * serves no Deployments, policy/v1 or rbac.authorization.k8s.io: there, those objects are listed
 * and skipped, the rest is applied. Neither has the Prometheus Operator CRDs: the prometheus
 * component is rendered here and checked as files by test/unit/deploy.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { backendFromEnv, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

type Obj = Record<string, unknown>;

let cluster: TestCluster;
let ns: string;
let overlays: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await cluster.namespace("install");
  // Pod Security: the API server warns when a Deployment's pods would break `restricted`.
  await cluster.kubectl(["label", "namespace", ns, "pod-security.kubernetes.io/warn=restricted"]);
  overlays = mkdtempSync(join(tmpdir(), "petset-install-"));
});
afterAll(async () => {
  if (overlays) rmSync(overlays, { recursive: true, force: true });
  await cluster?.stop();
});

function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

async function render(dir: string): Promise<Obj[]> {
  const r = await cluster.kubectl(["kustomize", dir]);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
}

/** An overlay of deploy/ (and components) into this test's namespace, as a user writes one. */
function overlay(name: string, components: string[] = []): string {
  const dir = join(overlays, name);
  const rel = (p: string) => relative(dir, join(REPO_ROOT, p));
  mkdirSync(dir, { recursive: true });
  const kustomization = {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    namespace: ns,
    resources: [rel("deploy")],
    ...(components.length > 0 ? { components: components.map(rel) } : {}),
  };
  writeFileSync(join(dir, "kustomization.yaml"), stringify(kustomization));
  return dir;
}

const kindOf = (o: Obj) => `${String(o.kind)}/${String(at(o, "metadata", "name"))}`;
const find = (objs: Obj[], kind: string, name?: string) =>
  objs.find((o) => o.kind === kind && (name === undefined || at(o, "metadata", "name") === name));

/** apiVersion/kind pairs the cluster serves, from discovery. */
async function servedKinds(): Promise<Set<string>> {
  const r = await cluster.kubectl(["api-resources", "--no-headers"]);
  const out = new Set<string>();
  for (const line of r.stdout.split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4) continue;
    const [apiVersion, , kind] = cols.slice(-3);
    out.add(`${apiVersion}/${kind}`);
  }
  return out;
}

/** Kinds the embedded server does not serve (yet): their objects are skipped there. */
const NOT_ON_EMBEDDED = new Set([
  "apps/v1/Deployment",
  "policy/v1/PodDisruptionBudget",
  "rbac.authorization.k8s.io/v1/Role",
  "rbac.authorization.k8s.io/v1/RoleBinding",
  "rbac.authorization.k8s.io/v1/ClusterRole",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
]);

describe("kubectl kustomize deploy/", () => {
  let objs: Obj[];
  beforeAll(async () => {
    objs = await render("deploy");
  });

  it("renders the CRDs, the namespace, RBAC, the Deployment, a PodDisruptionBudget and the metrics Service", () => {
    expect(objs.map(kindOf).sort()).toEqual(
      [
        "ClusterRole/petset-controller",
        "ClusterRoleBinding/petset-controller",
        "CustomResourceDefinition/petsets.petset.dev",
        "CustomResourceDefinition/petsetversions.petset.dev",
        "Deployment/petset-controller",
        "Namespace/petset-system",
        "PodDisruptionBudget/petset-controller",
        "Role/petset-controller-leader-election",
        "RoleBinding/petset-controller-leader-election",
        "Service/petset-controller-metrics",
        "ServiceAccount/petset-controller",
      ].sort(),
    );
    for (const o of objs) {
      if (
        o.kind === "Namespace" ||
        o.kind?.toString().startsWith("Cluster") ||
        o.kind === "CustomResourceDefinition"
      )
        continue;
      expect(at(o, "metadata", "namespace"), kindOf(o)).toBe("petset-system");
    }
    // The install binds the ServiceAccount only, not the test cluster's static user.
    expect(at(find(objs, "ClusterRoleBinding"), "subjects")).toEqual([
      { kind: "ServiceAccount", name: "petset-controller", namespace: "petset-system" },
    ]);
  });

  it("runs 2 hardened replicas with leader election in their own namespace and probes on the metrics port", () => {
    const d = find(objs, "Deployment", "petset-controller");
    expect(at(d, "spec", "replicas")).toBe(2);
    const pod = at(d, "spec", "template", "spec");
    expect(at(pod, "serviceAccountName")).toBe("petset-controller");
    expect(at(pod, "securityContext")).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    const c = at(pod, "containers", 0);
    expect(at(c, "securityContext")).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(at(c, "args")).toEqual(
      expect.arrayContaining(["controller", "--lease-namespace=$(POD_NAMESPACE)", "--metrics-addr=:8080"]),
    );
    expect(at(c, "env")).toContainEqual({
      name: "POD_NAMESPACE",
      valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
    });
    expect(at(c, "ports")).toContainEqual({ name: "metrics", containerPort: 8080 });
    expect(at(c, "livenessProbe", "httpGet")).toEqual({ path: "/healthz", port: "metrics" });
    expect(at(c, "readinessProbe", "httpGet")).toEqual({ path: "/readyz", port: "metrics" });
    expect(at(c, "resources", "requests")).toMatchObject({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(at(c, "resources", "limits", "memory")).toEqual(expect.any(String));
  });

  it("lets one replica be disrupted at a time, and serves /metrics on a port named metrics", () => {
    const podLabels = at(find(objs, "Deployment"), "spec", "template", "metadata", "labels");
    const pdb = find(objs, "PodDisruptionBudget");
    expect(at(pdb, "spec", "maxUnavailable")).toBe(1);
    expect(at(pdb, "spec", "selector", "matchLabels")).toEqual(podLabels);
    const svc = find(objs, "Service", "petset-controller-metrics");
    expect(at(svc, "spec", "selector")).toEqual(podLabels);
    expect(at(svc, "spec", "ports")).toEqual([
      { name: "metrics", port: 8080, targetPort: "metrics", protocol: "TCP" },
    ]);
  });
});

describe("the install on the API server (--dry-run=server)", () => {
  it(`every object is accepted, in a namespace set by an overlay, with no Pod Security warning${
    backendFromEnv() === "embedded"
      ? " (embedded: Deployment, PodDisruptionBudget and RBAC skipped, not served there)"
      : ""
  }`, async () => {
    const objs = await render(overlay("base"));
    const served = await servedKinds();
    const skipped = objs.filter((o) => !served.has(`${String(o.apiVersion)}/${String(o.kind)}`));
    if (cluster.backend === "embedded") {
      for (const o of skipped)
        expect(NOT_ON_EMBEDDED, kindOf(o)).toContain(`${String(o.apiVersion)}/${String(o.kind)}`);
    } else {
      expect(skipped.map(kindOf)).toEqual([]);
    }
    const applied = objs.filter((o) => !skipped.includes(o));
    // The overlay moved every namespaced object, the Lease's Role and the binding's subject.
    expect(at(find(objs, "Namespace"), "metadata", "name")).toBe(ns);
    expect(at(find(objs, "Role"), "metadata", "namespace")).toBe(ns);
    expect(at(find(objs, "ClusterRoleBinding"), "subjects")).toEqual([
      { kind: "ServiceAccount", name: "petset-controller", namespace: ns },
    ]);
    const r = await cluster.kubectl(
      [
        "apply",
        "--server-side",
        "--dry-run=server",
        // The shared cluster's CRDs and ClusterRole were applied by other field managers.
        "--force-conflicts",
        "--field-manager=petset-install-test",
        "-f",
        "-",
      ],
      { input: applied.map((o) => stringify(o)).join("---\n"), allowFail: true },
    );
    expect(r.stderr).not.toMatch(/error|warning/i);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(applied.length);
    for (const line of lines) expect(line).toMatch(/ serverside-applied \(server dry run\)$/);
  });
});

describe("deploy/components/prometheus", () => {
  it("adds a ServiceMonitor and a PrometheusRule in the overlay's namespace and changes nothing else", async () => {
    const base = await render(overlay("base"));
    const withPrometheus = await render(overlay("prometheus", ["deploy/components/prometheus"]));
    const added = withPrometheus.filter((o) => !base.some((b) => kindOf(b) === kindOf(o)));
    expect(added.map(kindOf).sort()).toEqual([
      "PrometheusRule/petset-controller",
      "ServiceMonitor/petset-controller",
    ]);
    for (const o of added) {
      expect(o.apiVersion).toBe("monitoring.coreos.com/v1");
      expect(at(o, "metadata", "namespace")).toBe(ns);
    }
    expect(withPrometheus.filter((o) => !added.includes(o))).toEqual(base);
    // Only a cluster with the Prometheus Operator's CRDs can check them (the test clusters
    // have none): test/unit/deploy checks them as files.
    const served = await servedKinds();
    if (added.every((o) => served.has(`${String(o.apiVersion)}/${String(o.kind)}`))) {
      const input = added.map((o) => stringify(o)).join("---\n");
      await cluster.kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], { input });
    }
  });
});
