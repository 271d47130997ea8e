import { describe, expect, it } from "vitest";
import { Annotations } from "../../../src/api/index.js";
import { summarizeChange } from "../../../src/versions/change-summary.js";
import type { VersionContent } from "../../../src/versions/content.js";

type Spec = Record<string, unknown>;
type Meta = Record<string, unknown>;

const app = { name: "app", image: "nginx:1.26" };

function c(
  spec: Spec = {},
  metadata: Meta = { labels: { app: "web" } },
  claims: unknown[] = [],
): VersionContent {
  return {
    template: { metadata, spec: { containers: [app], ...spec } },
    volumeClaimTemplates: claims,
  } as VersionContent;
}

const containers = (...list: Record<string, unknown>[]) => c({ containers: list });
const appWith = (fields: Record<string, unknown>) => containers({ ...app, ...fields });

describe("summarizeChange", () => {
  it.each<[string, VersionContent, VersionContent, string[]]>([
    ["nothing", c(), c(), []],
    ["image", c(), appWith({ image: "nginx:1.27" }), ["image app: nginx:1.26 -> nginx:1.27"]],
    [
      "env added, removed, changed",
      appWith({
        env: [
          { name: "BAR", value: "1" },
          { name: "BAZ", value: "1" },
        ],
      }),
      appWith({
        env: [
          { name: "BAZ", value: "2" },
          { name: "FOO", value: "1" },
        ],
      }),
      ["env app: +FOO, -BAR, ~BAZ"],
    ],
    [
      "env reordered",
      appWith({
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "$(A)" },
        ],
      }),
      appWith({
        env: [
          { name: "B", value: "$(A)" },
          { name: "A", value: "1" },
        ],
      }),
      ["env app: reordered"],
    ],
    ["env from", c(), appWith({ envFrom: [{ configMapRef: { name: "cm" } }] }), ["envFrom app"]],
    [
      "resources, shown as written",
      appWith({ resources: { requests: { cpu: "100m" }, limits: { memory: "1Gi" } } }),
      appWith({ resources: { requests: { cpu: "200m" }, limits: { cpu: 1 } } }),
      ["resources app: requests.cpu 100m -> 200m, limits.cpu none -> 1, limits.memory 1Gi -> none"],
    ],
    [
      "same quantity spelled differently is no change",
      appWith({ resources: { limits: { cpu: "1" } } }),
      appWith({ resources: { limits: { cpu: "1000m" } } }),
      [],
    ],
    [
      "command and args",
      appWith({ command: ["sh", "-c"], args: ["run"] }),
      appWith({ command: ["bash", "-c"], args: ["run", "--fast"] }),
      ["command app: sh -c -> bash -c", "args app: run -> run --fast"],
    ],
    [
      "other container fields, by name",
      c(),
      appWith({ ports: [{ containerPort: 80 }], readinessProbe: { tcpSocket: { port: 80 } } }),
      ["container app: ports, readinessProbe"],
    ],
    [
      "defaults added are no change",
      c(),
      appWith({ imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log" }),
      [],
    ],
    [
      "containers added and removed",
      containers(app, { name: "old", image: "x" }),
      containers(app, { name: "sidecar", image: "y" }),
      ["containers: +sidecar, -old"],
    ],
    [
      "containers reordered",
      containers(app, { name: "b", image: "y" }),
      containers({ name: "b", image: "y" }, app),
      ["containers: reordered"],
    ],
    [
      "init containers",
      c({ initContainers: [{ name: "migrate", image: "m:1" }] }),
      c({
        initContainers: [
          { name: "migrate", image: "m:2" },
          { name: "warm", image: "w" },
        ],
      }),
      ["initContainers: +warm", "image migrate (init): m:1 -> m:2"],
    ],
    [
      "volumes",
      c({
        volumes: [
          { name: "tmp", emptyDir: {} },
          { name: "config", configMap: { name: "a" } },
        ],
      }),
      c({
        volumes: [
          { name: "config", configMap: { name: "b" } },
          { name: "cache", emptyDir: {} },
        ],
      }),
      ["volumes: +cache, -tmp, ~config"],
    ],
    [
      "other pod fields",
      c(),
      c({ nodeSelector: { disk: "ssd" }, tolerations: [{ operator: "Exists" }] }),
      ["pod: nodeSelector, tolerations"],
    ],
    [
      "template labels",
      c({}, { labels: { app: "web", old: "1", tier: "a" } }),
      c({}, { labels: { app: "web", tier: "b", team: "x" } }),
      ["labels: +team, -old, ~tier"],
    ],
    [
      "template annotations",
      c(),
      c({}, { labels: { app: "web" }, annotations: { "prometheus.io/scrape": "true" } }),
      ["annotations: +prometheus.io/scrape"],
    ],
    [
      "restart",
      c({}, { labels: { app: "web" }, annotations: { [Annotations.restartedAt]: "2025-01-01T00:00:00Z" } }),
      c({}, { labels: { app: "web" }, annotations: { [Annotations.restartedAt]: "2025-02-01T00:00:00Z" } }),
      ["restart requested"],
    ],
    [
      "volumeClaimTemplates",
      c({}, undefined, [
        { metadata: { name: "logs" } },
        { metadata: { name: "data" }, spec: { resources: { requests: { storage: "1Gi" } } } },
      ]),
      c({}, undefined, [
        { metadata: { name: "data" }, spec: { resources: { requests: { storage: "2Gi" } } } },
        { metadata: { name: "cache" } },
      ]),
      ["volumeClaimTemplates: +cache, -logs, ~data"],
    ],
    [
      "several at once, in a fixed order",
      c({}, { labels: { app: "web" } }),
      c(
        { volumes: [{ name: "v", emptyDir: {} }], containers: [{ ...app, image: "nginx:1.27" }] },
        { labels: { app: "web", v: "2" } },
      ),
      ["image app: nginx:1.26 -> nginx:1.27", "volumes: +v", "labels: +v"],
    ],
  ])("%s", (_name, from, to, expected) => {
    expect(summarizeChange(from, to)).toEqual(expected);
  });
});
