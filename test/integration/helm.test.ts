/**
 * Issue 30 item 1: the Helm chart deploy/helm/petset.
 *
 * - As files (no cluster needed, but run with the real backend, whose test/cluster/up.sh builds
 *   helm; the embedded suite may start before that build ends): `helm lint` of each values
 *   profile (ci/*-values.yaml); `helm template` of release petset-controller in petset-system
 *   renders the objects `kubectl kustomize deploy/` renders (one source: a difference fails),
 *   and the monitoring profile adds the ServiceMonitor and PrometheusRule of
 *   deploy/components/prometheus; the namespaced profile renders a Role and `--namespace`;
 *   values that cannot work are refused.
 * - On a real kube-apiserver: each profile's `helm template` is accepted by `kubectl apply
 *   --server-side --dry-run=server` (the monitoring.coreos.com CRDs come from the minimal
 *   test/cluster/manifests/monitoring-coreos-crds.yaml, applied here and left installed:
 *   other files' dry runs may use them); then `helm install`, `helm upgrade` to the
 *   namespaced profile and `helm uninstall` in this test's namespace, asserting the objects,
 *   the ServiceAccount's permissions (`kubectl auth can-i --as`) and that uninstall keeps the
 *   CRDs and PetSets. kwok runs no containers: the controller pods are not exercised here.
 *   The release is named after the test's namespace, so no name meets the objects
 *   test/cluster creates (ClusterRole petset-controller, ...).
 *
 * helm is built by test/cluster/build-helm.sh (from up.sh, with the control plane); without it
 * the file is skipped with that message (on the real backend with CI=true it fails).
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { backendFromEnv, REPO_ROOT, startTestCluster, type TestCluster } from "../support/cluster.js";

type Obj = Record<string, unknown>;

const HELM = execFileSync("bash", [join(REPO_ROOT, "test", "cluster", "build-helm.sh"), "--path"])
  .toString()
  .trim();
const haveHelm = existsSync(HELM);
if (!haveHelm && process.env.CI === "true" && backendFromEnv() === "real")
  throw new Error(`${HELM} is missing: test/cluster/up.sh builds it`);
const CHART = join(REPO_ROOT, "deploy", "helm", "petset");
const PROFILES = ["default", "namespaced", "monitoring"] as const;
const profile = (p: string) => join(CHART, "ci", `${p}-values.yaml`);
/** Labels only the chart sets (a release's identity); everything else is as in deploy/. */
const CHART_ONLY_LABELS = ["app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "helm.sh/chart"];

let helmHome: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(
      cmd,
      args,
      {
        cwd: REPO_ROOT,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 120_000,
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(helmHome, "cache"),
          HELM_CONFIG_HOME: join(helmHome, "config"),
          HELM_DATA_HOME: join(helmHome, "data"),
        },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** helm's stderr without its notes on the chart's links to crds/ and the alert rules. */
const helmErrors = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.includes("found symbolic link in path"))
    .join("\n");

async function helm(...args: string[]): Promise<string> {
  const r = await run(HELM, args);
  if (r.code !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.code}): ${helmErrors(r.stderr)}`);
  return r.stdout;
}

const docs = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
const at = (v: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (cur, p) =>
      typeof cur === "object" && cur !== null ? (cur as Record<string | number, unknown>)[p] : undefined,
    v,
  );
const kindOf = (o: Obj) => `${String(o.kind)}/${String(at(o, "metadata", "name"))}`;
const byKind = (objs: Obj[]) => new Map(objs.map((o) => [kindOf(o), o]));

function withoutLabels(v: unknown, labels: string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutLabels(x, labels));
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !labels.includes(k))
      .map(([k, x]) => [k, withoutLabels(x, labels)]),
  );
}

beforeAll(() => {
  helmHome = mkdtempSync(join(tmpdir(), "petset-helm-"));
});
afterAll(() => {
  if (helmHome) rmSync(helmHome, { recursive: true, force: true });
});

describe.skipIf(!haveHelm || backendFromEnv() !== "real")(
  `issue 30 item 1: the chart as files${haveHelm ? "" : " (skipped: no helm; bash test/cluster/build-helm.sh builds it)"}`,
  () => {
    it.each(PROFILES.map((p) => [p]))("helm lint with the %s profile: no error, no warning", async (p) => {
      const r = await run(HELM, ["lint", CHART, "--strict", "-f", profile(p)]);
      expect(helmErrors(r.stderr)).toBe("");
      expect(r.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
      expect(r.stdout).not.toMatch(/\[(ERROR|WARNING)\]/);
      expect(r.code).toBe(0);
    });

    it("helm template of release petset-controller renders the objects of kubectl kustomize deploy/ (but the Namespace)", async () => {
      const chart = docs(
        await helm("template", "petset-controller", CHART, "-n", "petset-system", "--include-crds"),
      ).map((o) => withoutLabels(o, CHART_ONLY_LABELS) as Obj);
      const kustomize = docs((await run("kubectl", ["kustomize", "deploy"])).stdout);
      // helm installs into an existing namespace (helm install --create-namespace, or the
      // platform's own); the base's Namespace carries the restricted Pod Security label.
      const base = kustomize.filter((o) => o.kind !== "Namespace");
      expect(kustomize.length - base.length).toBe(1);
      expect([...byKind(chart).keys()].sort()).toEqual([...byKind(base).keys()].sort());
      for (const [key, o] of byKind(base)) expect(byKind(chart).get(key), key).toEqual(o);
    });

    it("the monitoring profile adds the ServiceMonitor and PrometheusRule of deploy/components/prometheus", async () => {
      const plain = byKind(docs(await helm("template", "petset-controller", CHART, "-n", "petset-system")));
      const monitoring = docs(
        await helm(
          "template",
          "petset-controller",
          CHART,
          "-n",
          "petset-system",
          "-f",
          profile("monitoring"),
        ),
      );
      const added = monitoring.filter((o) => !plain.has(kindOf(o)));
      expect(added.map(kindOf).sort()).toEqual([
        "PrometheusRule/petset-controller",
        "ServiceMonitor/petset-controller",
      ]);
      for (const o of added) expect(at(o, "metadata", "labels", "release")).toBe("kube-prometheus-stack");
      const component = byKind(
        docs((await run("kubectl", ["kustomize", "deploy/components/prometheus"])).stdout),
      );
      for (const o of added)
        expect(withoutLabels(o, [...CHART_ONLY_LABELS, "release"]), kindOf(o)).toEqual(
          component.get(kindOf(o)),
        );
    });

    it("the namespaced profile: a Role in the watched namespace, one ClusterRole for the CRD check, --namespace, no Lease", async () => {
      const objs = docs(await helm("template", "ops", CHART, "-n", "team-a", "-f", profile("namespaced")));
      expect(objs.map(kindOf).sort()).toEqual(
        [
          "ClusterRole/ops-petset-crds",
          "ClusterRoleBinding/ops-petset-crds",
          "Deployment/ops-petset",
          "Role/ops-petset",
          "RoleBinding/ops-petset",
          "Service/ops-petset-metrics",
          "ServiceAccount/ops-petset",
        ].sort(),
      );
      const role = objs.find((o) => o.kind === "Role");
      expect(at(role, "metadata", "namespace")).toBe("team-a");
      expect(
        at(
          objs.find((o) => o.kind === "ClusterRole"),
          "rules",
        ),
      ).toEqual([
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          resourceNames: ["petsets.petset.dev", "petsetversions.petset.dev"],
          verbs: ["get"],
        },
      ]);
      const deployment = objs.find((o) => o.kind === "Deployment");
      expect(at(deployment, "spec", "replicas")).toBe(1);
      expect(at(deployment, "spec", "template", "spec", "containers", 0, "args")).toEqual([
        "controller",
        "--no-leader-elect",
        "--metrics-addr=:8080",
        "--namespace=team-a",
        "--workers=12",
      ]);
    });

    it("refuses values that cannot work, naming them", async () => {
      const many = await run(HELM, [
        "template",
        "x",
        CHART,
        "--set",
        "replicas=2",
        "--set",
        "leaderElection.enabled=false",
      ]);
      expect(many.code).not.toBe(0);
      expect(many.stderr).toContain("replicas > 1 needs leaderElection.enabled");
      const scope = await run(HELM, ["template", "x", CHART, "--set", "rbac.scope=everything"]);
      expect(scope.code).not.toBe(0);
      expect(scope.stderr).toContain('rbac.scope: "everything" is not cluster or namespace');
    });
  },
);

describe.skipIf(!haveHelm || backendFromEnv() !== "real")(
  `issue 30 item 1: the chart on kube-apiserver${haveHelm ? "" : " (skipped: no helm; bash test/cluster/build-helm.sh builds it)"}`,
  () => {
    let cluster: TestCluster;
    let ns: string;
    let release: string;
    let kubeconfig: string[];
    let installed = false;
    beforeAll(async () => {
      cluster = await startTestCluster();
      ns = await cluster.namespace("helm");
      release = `petset-${ns}`;
      kubeconfig = ["--kubeconfig", cluster.kubeconfigPath];
      await cluster.kubectl(["label", "namespace", ns, "pod-security.kubernetes.io/warn=restricted"]);
      await cluster.kubectl(["apply", "-f", "test/cluster/manifests/monitoring-coreos-crds.yaml"]);
      await cluster.kubectl([
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/servicemonitors.monitoring.coreos.com",
        "crd/prometheusrules.monitoring.coreos.com",
      ]);
    });
    afterAll(async () => {
      if (installed) await run(HELM, ["uninstall", release, "-n", ns, ...kubeconfig]);
      await cluster?.stop();
    });

    const canI = async (as: string, ...args: string[]) =>
      (
        await cluster.kubectl(["auth", "can-i", ...args, `--as=system:serviceaccount:${ns}:${as}`], {
          allowFail: true,
        })
      ).stdout.trim();

    it.each(PROFILES.map((p) => [p]))(
      "helm template with the %s profile is accepted by --dry-run=server",
      async (p) => {
        const rendered = await helm("template", `petset-dry-${p}`, CHART, "-n", ns, "-f", profile(p));
        const r = await cluster.kubectl(
          [
            "apply",
            "--server-side",
            "--dry-run=server",
            "--field-manager=petset-helm-test",
            "-n",
            ns,
            "-f",
            "-",
          ],
          { input: rendered, allowFail: true },
        );
        expect(r.stderr).not.toMatch(/error|warning/i);
        expect(r.code).toBe(0);
        const lines = r.stdout.trim().split("\n");
        expect(lines).toHaveLength(docs(rendered).length);
        for (const line of lines) expect(line).toMatch(/ serverside-applied \(server dry run\)$/);
      },
    );

    it("helm install, upgrade to the namespaced profile, uninstall: objects, RBAC as the ServiceAccount, CRDs and PetSets kept", async () => {
      await helm("install", release, CHART, "-n", ns, ...kubeconfig);
      installed = true;
      const names = async (...args: string[]) =>
        (await cluster.kubectl(["get", ...args, "-o", "name"], { allowFail: true })).stdout
          .trim()
          .split("\n")
          .sort();
      expect(
        await names("deployment,serviceaccount,role,rolebinding,service,poddisruptionbudget", "-n", ns),
      ).toEqual(
        [
          `deployment.apps/${release}`,
          `poddisruptionbudget.policy/${release}`,
          `role.rbac.authorization.k8s.io/${release}-leader-election`,
          `rolebinding.rbac.authorization.k8s.io/${release}-leader-election`,
          `service/${release}-metrics`,
          "serviceaccount/default",
          `serviceaccount/${release}`,
        ].sort(),
      );
      expect(await names("clusterrole,clusterrolebinding", release)).toEqual([
        `clusterrole.rbac.authorization.k8s.io/${release}`,
        `clusterrolebinding.rbac.authorization.k8s.io/${release}`,
      ]);
      // Cluster scope: PetSets, pods and the Lease everywhere it needs them; no Secrets.
      expect(await canI(release, "list", "petsets.petset.dev", "--all-namespaces")).toBe("yes");
      expect(await canI(release, "create", "pods", "-n", "default")).toBe("yes");
      expect(await canI(release, "update", "leases.coordination.k8s.io", "-n", ns)).toBe("yes");
      expect(
        await canI(release, "get", "customresourcedefinitions.apiextensions.k8s.io/petsets.petset.dev"),
      ).toBe("yes");
      expect(
        await canI(release, "get", "customresourcedefinitions.apiextensions.k8s.io/other.example.com"),
      ).toBe("no");
      expect(await canI(release, "get", "secrets", "-n", ns)).toBe("no");

      await helm("upgrade", release, CHART, "-n", ns, "-f", profile("namespaced"), ...kubeconfig);
      expect(await names("clusterrole", release)).toEqual([""]);
      expect(await names("role,rolebinding,poddisruptionbudget", "-n", ns)).toEqual([
        `role.rbac.authorization.k8s.io/${release}`,
        `rolebinding.rbac.authorization.k8s.io/${release}`,
      ]);
      expect(await canI(release, "list", "petsets.petset.dev", "-n", ns)).toBe("yes");
      expect(await canI(release, "list", "petsets.petset.dev", "-n", "default")).toBe("no");
      expect(await canI(release, "create", "pods", "-n", "default")).toBe("no");
      expect(
        await canI(
          release,
          "get",
          "customresourcedefinitions.apiextensions.k8s.io/petsetversions.petset.dev",
        ),
      ).toBe("yes");
      const args = await cluster.kubectl([
        "get",
        "deployment",
        release,
        "-n",
        ns,
        "-o",
        "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].args}",
      ]);
      expect(args.stdout).toContain(
        `1 ["controller","--no-leader-elect","--metrics-addr=:8080","--namespace=${ns}"`,
      );

      // A PetSet the release's controller would own; uninstall leaves it and the CRDs.
      const petSet = {
        apiVersion: "petset.dev/v1alpha1",
        kind: "PetSet",
        metadata: { name: "kept", namespace: ns },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "kept" } },
          template: {
            metadata: { labels: { app: "kept" } },
            spec: { containers: [{ name: "a", image: "nginx" }] },
          },
        },
      };
      await cluster.kubectl(["apply", "-f", "-"], { input: stringify(petSet) });
      await helm("uninstall", release, "-n", ns, ...kubeconfig);
      installed = false;
      expect(await names("crd", "petsets.petset.dev", "petsetversions.petset.dev")).toEqual([
        "customresourcedefinition.apiextensions.k8s.io/petsets.petset.dev",
        "customresourcedefinition.apiextensions.k8s.io/petsetversions.petset.dev",
      ]);
      expect(await names("petsets.petset.dev", "-n", ns)).toEqual(["petset.petset.dev/kept"]);
      expect(await names("deployment,role,serviceaccount", "-n", ns)).toEqual(["serviceaccount/default"]);
      expect(await names("clusterrole", `${release}-crds`)).toEqual([""]);
    });
  },
);
