/**
 * PromQL as the deploy tests read it: the vector selectors of an expression (metric name and
 * label matchers), and which metrics and labels the controller's /metrics exports.
 */
import { parser } from "@prometheus-io/lezer-promql";
import type { Registry } from "prom-client";
import { createMetrics } from "../../../src/controller/metrics.js";
import { collectProcessMetrics } from "../../../src/controller/process-metrics.js";

export interface Selector {
  metric: string;
  matchers: { label: string; op: string; value: string }[];
}

/** The selectors of `expr` and how many syntax errors the parser met. */
export function selectors(expr: string): { errors: number; selectors: Selector[] } {
  const tree = parser.parse(expr);
  let errors = 0;
  const out: Selector[] = [];
  const text = (n: { from: number; to: number }) => expr.slice(n.from, n.to);
  tree.iterate({
    enter: (ref) => {
      if (ref.type.isError) errors++;
      if (ref.name !== "VectorSelector") return;
      const node = ref.node;
      const id = node.getChild("Identifier");
      const matchers = node.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ?? [];
      out.push({
        metric: id ? text(id) : "",
        matchers: matchers.map((m) => {
          const label = m.getChild("LabelName");
          const op = m.getChild("MatchOp");
          const value = m.getChild("StringLiteral");
          return {
            label: label ? text(label) : "",
            op: op ? text(op) : "",
            value: value ? JSON.parse(text(value)) : "",
          };
        }),
      });
    },
  });
  return { errors, selectors: out };
}

/** Labels Prometheus attaches to every scraped series of a ServiceMonitor target. */
export const TARGET_LABELS = new Set([
  "namespace",
  "pod",
  "service",
  "job",
  "instance",
  "endpoint",
  "container",
]);

/**
 * The controller's registry as `petset controller` serves it: src/controller/metrics.ts plus
 * the process metrics (src/controller/process-metrics.ts; src/cli/controller-command.ts adds them).
 */
export function controllerRegistry(withDefaults: boolean): Registry {
  const registry = createMetrics().registry;
  if (withDefaults) collectProcessMetrics(registry);
  return registry;
}

/** The label names a series of `metric` may carry (histogram suffixes resolved), or undefined. */
export function exportedLabels(registry: Registry, metric: string): string[] | undefined {
  const base = metric.replace(/_(bucket|sum|count)$/, "");
  const m = registry.getSingleMetric(metric) ?? registry.getSingleMetric(base);
  if (!m) return undefined;
  const names = "labelNames" in m && Array.isArray(m.labelNames) ? m.labelNames.map(String) : [];
  return metric.endsWith("_bucket") ? [...names, "le"] : names;
}
