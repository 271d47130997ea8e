/**
 * Built-in Table column descriptions as kube's printers (pkg/printers/internalversion) write
 * them: where kube describes a column by a field's doc, the shim gives that doc in full, read
 * here from the committed kube 1.33 OpenAPI document (issue 24, conformance allow-list).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configMapTable } from "../../../src/apiserver-shim/tables/builtin-tables.js";
import { podTable } from "../../../src/apiserver-shim/tables/pod-table.js";
import { REPO_ROOT } from "../../support/cluster.js";

const schemas = (
  JSON.parse(
    readFileSync(join(REPO_ROOT, "src/apiserver-shim/builtin/openapi/api__v1_openapi.json"), "utf8"),
  ) as { components: { schemas: Record<string, { properties: Record<string, { description: string }> }> } }
).components.schemas;
const doc = (type: string, field: string) =>
  schemas[`io.k8s.api.core.v1.${type}`]?.properties[field]?.description;
const described = (columns: { name: string; description: string }[]) =>
  Object.fromEntries(columns.map((c) => [c.name, c.description]));

describe("issue 24 conformance: built-in column descriptions", () => {
  it("pods: IP, Node, Nominated Node and Readiness Gates carry the field docs in full", () => {
    expect(described(podTable.columns)).toMatchObject({
      IP: doc("PodStatus", "podIP"),
      Node: doc("PodSpec", "nodeName"),
      "Nominated Node": doc("PodStatus", "nominatedNodeName"),
      "Readiness Gates": doc("PodSpec", "readinessGates"),
    });
  });

  it("configmaps: Data carries the ConfigMap.data doc", () => {
    expect(described(configMapTable.columns).Data).toBe(doc("ConfigMap", "data"));
  });
});
