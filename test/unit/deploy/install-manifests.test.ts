/**
 * The install manifests as files: the kustomizations list every manifest beside them, the
 * alerts are valid PromQL over metrics the controller exports, the krew manifest is
 * well-formed. What kubectl renders from them and what an API server accepts is
 * test/integration/install.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { ConditionTypes, ProgressingReasons } from "../../../src/api/names.js";
import { startProbeServer } from "../../../src/controller/http-server.js";
import { createMetrics } from "../../../src/controller/metrics.js";
import { controllerRegistry, exportedLabels, selectors, TARGET_LABELS } from "./promql.js";

type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${what}: not an object`);
  return v as Obj;
}

function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what}: not a list`);
  return v;
}

function readYaml(path: string): Obj {
  return obj(parse(readFileSync(path, "utf8")), path);
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml")
    .sort();
}

describe("kustomizations", () => {
  it("crds/Kustomization lists exactly the CRD files (no copy of them anywhere)", () => {
    const k = readYaml("crds/Kustomization");
    expect([...list(k.resources, "resources")].sort()).toEqual(yamlFiles("crds"));
  });

  it("deploy/kustomization.yaml includes the CRDs and every manifest in deploy/", () => {
    const resources = list(readYaml("deploy/kustomization.yaml").resources, "resources");
    expect(resources).toContain("../crds");
    expect(resources.filter((r) => r !== "../crds").sort()).toEqual(yamlFiles("deploy"));
  });

  it("the prometheus component lists every manifest in its folder", () => {
    const k = readYaml("deploy/components/prometheus/kustomization.yaml");
    expect(k.kind).toBe("Component");
    expect([...list(k.resources, "resources")].sort()).toEqual(yamlFiles("deploy/components/prometheus"));
  });
});

describe("deploy/controller.yaml", () => {
  const docs = parseAllDocuments(readFileSync("deploy/controller.yaml", "utf8")).map((d) =>
    obj(d.toJS(), "doc"),
  );
  const deployment = docs.find((d) => d.kind === "Deployment");
  const pod = obj(obj(obj(deployment?.spec, "spec").template, "template").spec, "pod spec");
  const container = obj(list(pod.containers, "containers")[0], "container");

  it("runs the controller with the memory settings the scale benchmark measured", () => {
    // docs/benchmarks.md section 4 ("Memory"): 10,000 x 3 was measured with exactly these.
    const env = Object.fromEntries(
      list(container.env, "env")
        .map((e) => obj(e, "env var"))
        .filter((e) => typeof e.value === "string")
        .map((e) => [String(e.name), String(e.value)]),
    );
    expect(env.NODE_OPTIONS).toBe("--max-old-space-size=384");
    expect(env.MALLOC_ARENA_MAX).toBe("2");
    expect(obj(obj(container.resources, "resources").limits, "limits").memory).toBe("512Mi");
    // The heap flags (the heap-growth one NODE_OPTIONS does not accept) come from the image's
    // ENTRYPOINT: the Deployment must not replace it.
    expect(container.command).toBeUndefined();
    const entrypoint = readFileSync("Dockerfile", "utf8").match(/^ENTRYPOINT (.*)$/m)?.[1];
    expect(JSON.parse(entrypoint ?? "[]")).toEqual([
      "node",
      "--heap-growing-percent=15",
      "--max-semi-space-size=16",
      "dist/src/cli/petset.bundle.js",
    ]);
  });

  it("the image's Node release is the one the benchmarks run the controller on (hack/image-node.sh)", () => {
    const froms = [...readFileSync("Dockerfile", "utf8").matchAll(/^FROM node:(\S+?)-bookworm-slim/gm)].map(
      (m) => m[1],
    );
    const pinned = readFileSync("hack/image-node.sh", "utf8").match(/^IMAGE_NODE_VERSION=(\S+)$/m)?.[1];
    expect(froms).toHaveLength(2);
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    for (const from of froms) expect(from).toBe(pinned);
  });

  it("probes paths the controller serves, on the port --metrics-addr opens", async () => {
    const args = list(container.args, "args").map(String);
    const addr = args.find((a) => a.startsWith("--metrics-addr="))?.split("=")[1];
    const ports = list(container.ports, "ports").map((p) => obj(p, "port"));
    expect(ports.find((p) => p.name === "metrics")?.containerPort).toBe(Number(addr?.split(":").at(-1)));
    const probes = ["livenessProbe", "readinessProbe"].map((k) => obj(obj(container[k], k).httpGet, k));
    for (const p of probes) expect(p.port).toBe("metrics");

    const metrics = createMetrics();
    const { server, port } = await startProbeServer({
      addr: "127.0.0.1:0",
      registry: metrics.registry,
      ready: () => true,
    });
    try {
      for (const p of probes) {
        const res = await fetch(`http://127.0.0.1:${port}${String(p.path)}`);
        expect(res.status, String(p.path)).toBe(200);
      }
      const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      // What components/prometheus alerts on.
      for (const m of ["petset_leader", "petset_syncs_total", "petset_condition"]) expect(body).toContain(m);
    } finally {
      server.close();
    }
  });
});

describe("deploy/components/prometheus", () => {
  const rule = readYaml("deploy/components/prometheus/prometheusrule.yaml");
  const groups = list(obj(rule.spec, "spec").groups, "spec.groups").map((g) => obj(g, "group"));
  const rules = groups.flatMap((g) => list(g.rules, "rules").map((r) => obj(r, "rule")));
  const metrics = controllerRegistry(false);

  it("alerts on a missed progress deadline, a failed hook, a controller not leading and sync errors", () => {
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        "PetSetProgressDeadlineExceeded",
        "PetSetHookFailed",
        "PetSetControllerNotLeading",
        "PetSetControllerSyncErrors",
      ]),
    );
  });

  it.each(rules.map((r) => [String(r.alert), r] as const))(
    "%s has a valid expression, a duration, a severity and a summary and description",
    (_name, r) => {
      const expr = String(r.expr);
      const parsed = selectors(expr);
      expect(parsed.errors, `PromQL syntax errors in ${expr}`).toBe(0);
      expect(String(r.for)).toMatch(/^\d+[smh]$/);
      expect(["warning", "critical"]).toContain(obj(r.labels, "labels").severity);
      const annotations = obj(r.annotations, "annotations");
      expect(String(annotations.summary ?? "")).not.toBe("");
      expect(String(annotations.description ?? "")).not.toBe("");
      // Every metric named is one the controller exports, matched on labels it has.
      for (const s of parsed.selectors) {
        const labels = exportedLabels(metrics, s.metric);
        expect(labels, `${s.metric} is not a metric of src/controller/metrics.ts`).toBeDefined();
        for (const m of s.matchers) {
          expect(
            labels?.includes(m.label) || TARGET_LABELS.has(m.label),
            `${s.metric} has no label ${m.label}`,
          ).toBe(true);
          if (s.metric === "petset_condition" && m.label === "type")
            expect(Object.values(ConditionTypes)).toContain(m.value);
          if (s.metric === "petset_condition" && m.label === "reason")
            expect(Object.values(ProgressingReasons)).toContain(m.value);
        }
      }
    },
  );

  it("the ServiceMonitor scrapes the metrics Service's port and keeps the PetSets' namespace label", () => {
    const monitor = obj(readYaml("deploy/components/prometheus/servicemonitor.yaml").spec, "spec");
    const service = readYaml("deploy/metrics-service.yaml");
    const endpoints = list(monitor.endpoints, "endpoints").map((e) => obj(e, "endpoint"));
    const ports = list(obj(service.spec, "spec").ports, "ports").map((p) => obj(p, "port").name);
    expect(endpoints.map((e) => e.port)).toEqual(["metrics"]);
    expect(ports).toContain("metrics");
    expect(endpoints[0]?.honorLabels).toBe(true);
    expect(obj(monitor.selector, "selector").matchLabels).toEqual(obj(service.metadata, "metadata").labels);
  });
});

describe("deploy/krew/petset.yaml", () => {
  const docs = parseAllDocuments(readFileSync("deploy/krew/petset.yaml", "utf8"));
  const plugin = obj(docs[0]?.toJS(), "plugin");
  const spec = obj(plugin.spec, "spec");
  const pkg = obj(JSON.parse(readFileSync("package.json", "utf8")), "package.json");

  it("is a krew Plugin named after the kubectl-petset command, at the package's version", () => {
    expect(docs).toHaveLength(1);
    expect(plugin.apiVersion).toBe("krew.googlecontainertools.github.com/v1alpha2");
    expect(plugin.kind).toBe("Plugin");
    expect(obj(plugin.metadata, "metadata").name).toBe("petset");
    expect(obj(pkg.bin, "bin")["kubectl-petset"]).toBe("dist/src/cli/kubectl-petset.js");
    expect(spec.version).toBe(`v${String(pkg.version)}`);
    expect(String(spec.homepage)).toMatch(/^https:\/\//);
    expect(String(spec.shortDescription).length).toBeGreaterThan(0);
    expect(String(spec.shortDescription).length).toBeLessThanOrEqual(50);
    expect(String(spec.description)).toContain("Node.js");
  });

  it("each platform selects an os and arch, and names an https archive, its sha256 and the script", () => {
    const platforms = list(spec.platforms, "platforms").map((p) => obj(p, "platform"));
    expect(platforms.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const p of platforms) {
      const match = obj(obj(p.selector, "selector").matchLabels, "matchLabels");
      expect(["linux", "darwin"]).toContain(match.os);
      expect(["amd64", "arm64"]).toContain(match.arch);
      seen.add(`${String(match.os)}/${String(match.arch)}`);
      expect(String(p.uri)).toMatch(/^https:\/\/.+\.tar\.gz$/);
      expect(String(p.sha256)).toMatch(/^[0-9a-f]{64}$/);
      // The archive holds the package under petset/; the script is what `kubectl petset` runs.
      expect(p.bin).toBe(`petset/${String(obj(pkg.bin, "bin")["kubectl-petset"])}`);
    }
    expect(seen.size).toBe(platforms.length);
  });
});
