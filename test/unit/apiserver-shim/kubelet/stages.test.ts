/** Stage files: validation, and the selector and engine on single objects. */
import { describe, expect, it } from "vitest";
import { delayFor, planStage, type World } from "../../../../src/apiserver-shim/kubelet/engine.js";
import type { KubeObject } from "../../../../src/apiserver-shim/kubelet/objects.js";
import { matchValue } from "../../../../src/apiserver-shim/kubelet/selector.js";
import {
  loadDefaultStages,
  parseStages,
  StageConfigError,
  type ValueMatch,
  withParams,
} from "../../../../src/apiserver-shim/kubelet/stages.js";

const world: World = {
  nodes: [
    {
      name: "n-0",
      ready: true,
      pods: 0,
      internalIP: "10.0.0.10",
      podCIDR: "10.244.0.0/24",
      podIPs: new Set<string>(),
    },
  ],
};

function stageFor(obj: KubeObject): string | undefined {
  return planStage(loadDefaultStages(), "pods", obj, world)?.stage.name;
}

function runningPod(images: Record<string, string>, statusImages = images, ready = "False"): KubeObject {
  const names = Object.keys(images);
  return {
    metadata: { name: "p", namespace: "default", uid: "u", resourceVersion: "1" },
    spec: { nodeName: "n-0", containers: names.map((n) => ({ name: n, image: images[n] })) },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: ready }],
      containerStatuses: names.map((n) => ({
        name: n,
        image: statusImages[n]!,
        ready: ready === "True",
        restartCount: 0,
        state: { running: {} },
      })),
    },
  };
}

describe("stage files", () => {
  it("loads and validates the default stages", () => {
    const config = loadDefaultStages();
    expect(config.stages.map((s) => s.name)).toContain("pod-crashloop");
    expect(config.params.readyDelayMs).toBe(200);
  });

  it.each([
    ["not YAML", "stages: [", /not valid YAML/],
    ["no stages", "params: {}", /stages/],
    [
      "unknown param",
      "stages: [{name: a, resource: pods, delay: {param: nope}, next: {delete: true}}]",
      /stages\.0\.delay\.param: unknown param "nope"/,
    ],
    [
      "unknown placeholder",
      "stages: [{name: a, resource: pods, next: {event: {reason: R, message: 'hi {{who}}'}}}]",
      /unknown placeholder \{\{who\}\}/,
    ],
    [
      "duplicate names",
      "stages: [{name: a, resource: pods, next: {delete: true}}, {name: a, resource: pods, next: {delete: true}}]",
      /duplicate stage/,
    ],
    [
      "containers on nodes",
      "stages: [{name: a, resource: nodes, selector: {containers: {any: {ready: true}}}, next: {statusPatch: {heartbeat: true}}}]",
      /containers\/scheduled are for pods/,
    ],
    ["a stage that does nothing", "stages: [{name: a, resource: pods, next: {}}]", /does nothing/],
    ["a misspelt field", "stages: [{name: a, resource: pods, selectr: {}, next: {delete: true}}]", /selectr/],
  ])("rejects %s, naming the file and field", (_, text, message) => {
    expect(() => parseStages(text, "my-stages.yaml")).toThrow(StageConfigError);
    expect(() => parseStages(text, "my-stages.yaml")).toThrow(message);
    expect(() => parseStages(text, "my-stages.yaml")).toThrow(/^my-stages\.yaml: /);
  });

  it("rejects overrides of params no stage has", () => {
    expect(() => withParams(loadDefaultStages(), { readyDelayMS: 5 })).toThrow(/params\.readyDelayMS/);
  });
});

describe("selector and planning", () => {
  const valueCases: [ValueMatch, string | undefined, boolean][] = [
    ["Running", "Running", true],
    ["Running", undefined, false],
    [{ in: ["A", "B"] }, "B", true],
    [{ in: ["A"] }, undefined, false],
    [{ notIn: ["True"] }, undefined, true],
    [{ notIn: ["True"] }, "True", false],
    [{ exists: false }, undefined, true],
    [{ exists: true }, "", true],
  ];
  it.each(valueCases)("matchValue(%j, %j) = %j", (m, value, expected) => {
    expect(matchValue(m, value)).toBe(expected);
  });

  it.each([
    ["a normal running pod becomes ready", runningPod({ app: "nginx:1" }), "pod-ready"],
    ["a slow one later", runningPod({ app: "x:slow", side: "y:1" }), "pod-ready-slow"],
    ["a broken one crash-loops", runningPod({ app: "x:broken" }), "pod-crashloop"],
    [
      "an in-place image change restarts",
      runningPod({ app: "x:2" }, { app: "x:1" }, "True"),
      "pod-image-changed",
    ],
    ["a ready pod is left alone", runningPod({ app: "x:1" }, { app: "x:1" }, "True"), undefined],
  ])("%s", (_, obj, stage) => {
    expect(stageFor(obj)).toBe(stage);
  });

  it("a deleting pod is deleted, unless already at grace 0", () => {
    const obj = runningPod({ app: "x:1" });
    obj.metadata.deletionTimestamp = "2025-01-01T00:00:00Z";
    expect(stageFor(obj)).toBe("pod-delete");
    obj.metadata.deletionGracePeriodSeconds = 0;
    expect(stageFor(obj)).toBeUndefined();
  });

  it("jitter is stable per object version and bounded", () => {
    const config = parseStages(
      "stages: [{name: a, resource: pods, delay: {ms: 100, jitterMs: 50}, next: {delete: true}}]",
      "t",
    );
    const stage = config.stages[0]!;
    const obj = runningPod({ app: "x:1" });
    const d = delayFor(stage, obj, {});
    expect(d).toBe(delayFor(stage, obj, {}));
    expect(d).toBeGreaterThanOrEqual(100);
    expect(d).toBeLessThanOrEqual(150);
  });
});
