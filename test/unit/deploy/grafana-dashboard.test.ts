/**
 * Issue 30, dashboards: deploy/grafana/petset.json against the metrics the controller
 * exports. Every query (panels and template variables) is valid PromQL naming a metric of
 * src/controller/metrics.ts or prom-client's default process metrics, matched on labels that
 * metric has; every metric the controller exports and every metric docs/operations.md
 * promises is on a panel, or in NOT_ON_PANELS with the reason.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConditionTypes, ProgressingReasons } from "../../../src/api/names.js";
import { controllerRegistry, exportedLabels, type Selector, selectors, TARGET_LABELS } from "./promql.js";

type Obj = Record<string, unknown>;

interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { expr: string; refId: string }[];
}

const dashboard = JSON.parse(readFileSync("deploy/grafana/petset.json", "utf8")) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: (Obj & { name: string; query?: unknown })[] };
};

/** Metrics the controller exports or the docs promise that no panel shows, and why. */
const NOT_ON_PANELS: Record<string, string> = {
  petset_pets_on_lost_nodes:
    "per PetSet and rare: alert on it (docs/failover.md); the condition PetsOnLostNodes names the pets",
};

const panels = dashboard.panels.filter((p) => p.type !== "row");
const queries: { where: string; expr: string }[] = [
  ...panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr })),
  ),
  // Template variables: label_values(<selector>, <label>) reads the selector's metric.
  ...dashboard.templating.list.flatMap((v) => {
    const q = typeof v.query === "object" && v.query !== null ? (v.query as Obj).query : v.query;
    const m = typeof q === "string" ? /^label_values\((.+),\s*\w+\)$/.exec(q) : null;
    return m?.[1] ? [{ where: `variable $${v.name}`, expr: m[1] }] : [];
  }),
];
const registry = controllerRegistry(true);
const onPanels = new Set(
  queries.flatMap((q) =>
    selectors(q.expr).selectors.map((s) => s.metric.replace(/_(bucket|sum|count)$/, "")),
  ),
);

function valuesOf(m: Selector["matchers"][number]): string[] {
  // A regex matcher of plain alternatives (reason=~"Paused|StepPaused") names each of them.
  if (m.op === "=~" && /^[A-Za-z|]+$/.test(m.value)) return m.value.split("|");
  return m.op === "=" ? [m.value] : [];
}

describe("deploy/grafana/petset.json", () => {
  it("is a dashboard with a stable uid, unique panel ids and panels inside the 24-column grid", () => {
    expect(dashboard.uid).toBe("petset-controller");
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type !== "row") expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0);
    }
  });

  it("shows rollouts (pods per version, versions live, deadline hits, rollbacks, hooks) and the controller (queue, syncs, writes, Lease)", () => {
    for (const metric of [
      "petset_pods",
      "petset_versions",
      "petset_condition",
      "petset_hook_runs_total",
      "petset_hook_run_duration_seconds",
      "petset_queue_depth",
      "petset_queue_duration_seconds",
      "petset_sync_duration_seconds",
      "petset_syncs_total",
      "petset_api_writes_total",
      "petset_leader",
      "petset_writes_refused_total",
    ])
      expect(onPanels, metric).toContain(metric);
    const reasons = new Set(
      queries.flatMap((q) =>
        selectors(q.expr)
          .selectors.filter((s) => s.metric === "petset_condition")
          .flatMap((s) => s.matchers.filter((m) => m.label === "reason").flatMap(valuesOf)),
      ),
    );
    for (const r of ["ProgressDeadlineExceeded", "RolledBack", "HookFailed"]) expect(reasons).toContain(r);
  });

  it.each(queries.map((q) => [q.where, q.expr] as const))(
    "%s is valid PromQL over metrics and labels the controller exports",
    (_where, expr) => {
      const parsed = selectors(expr);
      expect(parsed.errors, `PromQL syntax errors in ${expr}`).toBe(0);
      expect(parsed.selectors.length).toBeGreaterThan(0);
      for (const s of parsed.selectors) {
        const labels = exportedLabels(registry, s.metric);
        expect(labels, `${s.metric} is not a metric the controller exports`).toBeDefined();
        for (const m of s.matchers) {
          expect(
            labels?.includes(m.label) || TARGET_LABELS.has(m.label),
            `${s.metric} has no label ${m.label}`,
          ).toBe(true);
          if (s.metric !== "petset_condition") continue;
          if (m.label === "type")
            for (const v of valuesOf(m)) expect(Object.values(ConditionTypes) as string[]).toContain(v);
          if (m.label === "reason")
            for (const v of valuesOf(m)) expect(Object.values(ProgressingReasons) as string[]).toContain(v);
        }
      }
    },
  );

  it("every metric of src/controller/metrics.ts is on a panel or listed as not", async () => {
    const own = (await controllerRegistry(false).getMetricsAsJSON()).map((m) => m.name);
    expect(own.length).toBeGreaterThan(5);
    for (const name of own) expect(onPanels.has(name) || name in NOT_ON_PANELS, name).toBe(true);
  });

  it("every metric docs/operations.md promises is on a panel or listed as not", () => {
    const doc = readFileSync("docs/operations.md", "utf8");
    const section = doc.slice(
      doc.indexOf("### Health and metrics"),
      doc.indexOf("### What happens on errors"),
    );
    const promised = [...section.matchAll(/^\| (`[^|]+`) \|/gm)].flatMap((m) =>
      [...(m[1] ?? "").matchAll(/`([a-z_*]+)(?:\{[^}]*\})?`/g)].map((n) => n[1] ?? ""),
    );
    expect(promised).toContain("petset_queue_depth");
    expect(promised).toContain("process_resident_memory_bytes");
    for (const name of promised) {
      const shown = name.endsWith("*")
        ? [...onPanels].some((m) => m.startsWith(name.slice(0, -1)))
        : onPanels.has(name) || name in NOT_ON_PANELS;
      expect(shown, `${name} (docs/operations.md) is on no panel`).toBe(true);
    }
  });
});
