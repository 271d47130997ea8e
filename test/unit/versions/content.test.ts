import { describe, expect, it } from "vitest";
import { defaultPullPolicy } from "../../../src/versions/canonical-defaults.js";
import { canonicalJson } from "../../../src/versions/canonical-json.js";
import {
  canonicalContent,
  sameContent,
  type VersionContent,
  versionedContent,
} from "../../../src/versions/content.js";
import { hashContent } from "../../../src/versions/hash.js";
import { petSet } from "./fixtures.js";

type Template = VersionContent["template"];

function of(template: unknown, volumeClaimTemplates: unknown[] = []): VersionContent {
  return { template: template as Template, volumeClaimTemplates } as VersionContent;
}

const probe = { httpGet: { port: 8080 } };

/** What a user writes. */
const written = of(
  {
    metadata: { labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          ports: [{ containerPort: 80, name: "http" }],
          env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          resources: { requests: { cpu: 1, memory: "1Gi" } },
          readinessProbe: probe,
          lifecycle: { preStop: { httpGet: { port: 8080 } } },
          volumeMounts: [{ name: "config", mountPath: "/etc/app" }],
        },
      ],
      initContainers: [{ name: "init", image: "busybox" }],
      volumes: [
        { name: "config", configMap: { name: "web" } },
        { name: "cache", emptyDir: {} },
        { name: "host", hostPath: { path: "/var/log" } },
      ],
    },
  },
  [
    {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    },
  ],
);

/** The same thing after a trip through `kubectl get sts -o yaml`, with every default filled in. */
const defaulted = of(
  {
    metadata: { creationTimestamp: null, labels: { app: "web" } },
    spec: {
      securityContext: {},
      schedulerName: "default-scheduler",
      terminationGracePeriodSeconds: 30,
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      enableServiceLinks: true,
      containers: [
        {
          image: "nginx:1.27",
          name: "app",
          imagePullPolicy: "IfNotPresent",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
          env: [
            { name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
          ],
          resources: { requests: { memory: "1024Mi", cpu: "1000m" }, limits: {} },
          readinessProbe: {
            httpGet: { port: 8080, path: "/", scheme: "HTTP" },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          lifecycle: { preStop: { httpGet: { port: 8080, path: "/", scheme: "HTTP" } } },
          volumeMounts: [{ mountPath: "/etc/app", name: "config" }],
          securityContext: {},
          args: [],
        },
      ],
      initContainers: [
        {
          name: "init",
          image: "busybox",
          imagePullPolicy: "Always",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          resources: {},
        },
      ],
      volumes: [
        { name: "config", configMap: { name: "web", defaultMode: 420 } },
        { name: "cache", emptyDir: {} },
        { name: "host", hostPath: { path: "/var/log", type: "" } },
      ],
      tolerations: [],
      nodeSelector: {},
    },
  },
  [
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", creationTimestamp: null },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1073741824" } },
        volumeMode: "Filesystem",
      },
      status: { phase: "Pending" },
    },
  ],
);

describe("canonicalContent", () => {
  it("hashes a template the same with and without Kubernetes' defaults", () => {
    expect(canonicalJson(canonicalContent(defaulted))).toBe(canonicalJson(canonicalContent(written)));
    expect(hashContent(defaulted)).toBe(hashContent(written));
    expect(sameContent(defaulted, written)).toBe(true);
  });

  it("ignores key order", () => {
    const reordered = of({
      spec: { containers: [{ image: "nginx:1.27", name: "app" }] },
      metadata: { labels: { app: "web" } },
    });
    const ordered = of({
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
    });
    expect(hashContent(reordered)).toBe(hashContent(ordered));
  });

  it("produces sorted keys and drops what means nothing", () => {
    const c = of({
      metadata: { labels: { b: "2", a: "1", "10": "x", "9": "y" }, annotations: {}, creationTimestamp: null },
      spec: { containers: [{ name: "app", image: "i:1", env: [], command: null }] },
    });
    expect(canonicalJson(canonicalContent(c))).toBe(
      '{"template":{"metadata":{"labels":{"10":"x","9":"y","a":"1","b":"2"}},"spec":{"containers":[{"image":"i:1","name":"app"}]}}}',
    );
  });

  const base = { name: "app", image: "nginx:1.27" };
  const withContainer = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
    of({ spec: { containers: [{ ...base, ...container }], ...spec } });
  const withVolume = (volume: Record<string, unknown>) =>
    of({ spec: { containers: [base], volumes: [{ name: "v", ...volume }] } });
  const withClaim = (spec: Record<string, unknown>) =>
    of({ spec: { containers: [base] } }, [{ metadata: { name: "data" }, spec }]);

  it.each<[string, VersionContent, VersionContent]>([
    [
      "cpu 1 vs '1'",
      withContainer({ resources: { limits: { cpu: 1 } } }),
      withContainer({ resources: { limits: { cpu: "1" } } }),
    ],
    [
      "cpu 1 vs 1000m",
      withContainer({ resources: { limits: { cpu: 1 } } }),
      withContainer({ resources: { limits: { cpu: "1000m" } } }),
    ],
    [
      "memory 1Gi vs 1024Mi",
      withContainer({ resources: { requests: { memory: "1Gi" } } }),
      withContainer({ resources: { requests: { memory: "1024Mi" } } }),
    ],
    ["empty resources", withContainer({ resources: { limits: {}, requests: {} } }), withContainer({})],
    [
      "untagged image pulls Always",
      withContainer({ image: "nginx", imagePullPolicy: "Always" }),
      withContainer({ image: "nginx" }),
    ],
    [
      ":latest pulls Always",
      withContainer({ image: "nginx:latest", imagePullPolicy: "Always" }),
      withContainer({ image: "nginx:latest" }),
    ],
    [
      "digest pulls IfNotPresent",
      withContainer({ image: "nginx@sha256:abc", imagePullPolicy: "IfNotPresent" }),
      withContainer({ image: "nginx@sha256:abc" }),
    ],
    ["null equals absent", withContainer({ command: null, workingDir: null }), withContainer({})],
    ["empty list equals absent", withContainer({ command: [], ports: [] }), withContainer({})],
    [
      "sizeLimit by value",
      withVolume({ emptyDir: { sizeLimit: "1Gi" } }),
      withVolume({ emptyDir: { sizeLimit: "1024Mi" } }),
    ],
    [
      "secret defaultMode 420",
      withVolume({ secret: { secretName: "s", defaultMode: 420 } }),
      withVolume({ secret: { secretName: "s" } }),
    ],
    ["claim volumeMode", withClaim({ volumeMode: "Filesystem" }), withClaim({})],
    [
      "claim storage by value",
      withClaim({ resources: { requests: { storage: "1Gi" } } }),
      withClaim({ resources: { requests: { storage: "1024Mi" } } }),
    ],
    [
      "startupProbe defaults",
      withContainer({
        startupProbe: { exec: { command: ["true"] }, failureThreshold: 3, periodSeconds: 10 },
      }),
      withContainer({ startupProbe: { exec: { command: ["true"] } } }),
    ],
  ])("equal: %s", (_name, a, b) => {
    expect(hashContent(a)).toBe(hashContent(b));
  });

  it.each<[string, VersionContent, VersionContent]>([
    ["another image", withContainer({ image: "nginx:1.26" }), withContainer({})],
    ["tagged image pulling Always", withContainer({ imagePullPolicy: "Always" }), withContainer({})],
    [
      "UDP port",
      withContainer({ ports: [{ containerPort: 53, protocol: "UDP" }] }),
      withContainer({ ports: [{ containerPort: 53 }] }),
    ],
    [
      "non-default probe period",
      withContainer({ readinessProbe: { ...probe, periodSeconds: 5 } }),
      withContainer({ readinessProbe: probe }),
    ],
    [
      "env order ($(VAR) expansion)",
      withContainer({
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "$(A)" },
        ],
      }),
      withContainer({
        env: [
          { name: "B", value: "$(A)" },
          { name: "A", value: "1" },
        ],
      }),
    ],
    [
      "more cpu",
      withContainer({ resources: { limits: { cpu: "1" } } }),
      withContainer({ resources: { limits: { cpu: "1001m" } } }),
    ],
    [
      "port name '8080' vs port 8080",
      withContainer({ readinessProbe: { httpGet: { port: "8080" } } }),
      withContainer({ readinessProbe: { httpGet: { port: 8080 } } }),
    ],
    ["emptyDir vs configMap volume", withVolume({ emptyDir: {} }), withVolume({ configMap: {} })],
    [
      "storageClassName '' (no class) vs absent (default class)",
      withClaim({ storageClassName: "" }),
      withClaim({}),
    ],
    [
      "empty labelSelector (all) vs none",
      withContainer(
        {},
        {
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "k", labelSelector: {} }],
            },
          },
        },
      ),
      withContainer(
        {},
        {
          affinity: {
            podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "k" }] },
          },
        },
      ),
    ],
    [
      "automountServiceAccountToken false",
      withContainer({}, { automountServiceAccountToken: false }),
      withContainer({}),
    ],
    ["enableServiceLinks false", withContainer({}, { enableServiceLinks: false }), withContainer({})],
    ["restartPolicy OnFailure", withContainer({}, { restartPolicy: "OnFailure" }), withContainer({})],
    [
      "label with empty value",
      of({ metadata: { labels: { tier: "" } }, spec: { containers: [base] } }),
      of({ spec: { containers: [base] } }),
    ],
    [
      "an empty toleration is still a toleration",
      withContainer({}, { tolerations: [{}] }),
      withContainer({}),
    ],
    ["a volumeClaimTemplate added", withClaim({}), withContainer({})],
  ])("different: %s", (_name, a, b) => {
    expect(hashContent(a)).not.toBe(hashContent(b));
  });
});

describe("versionedContent", () => {
  it("copies template and claim templates exactly as written", () => {
    const ps = petSet({ spec: { volumeClaimTemplates: [{ metadata: { name: "data" } }] } });
    const content = versionedContent(ps.spec);
    expect(content).toEqual({
      template: ps.spec.template,
      volumeClaimTemplates: ps.spec.volumeClaimTemplates,
    });
    expect(content.template).not.toBe(ps.spec.template);
    (content.template.spec.containers[0] as { image?: string }).image = "changed";
    expect(ps.spec.template.spec.containers[0]?.image).toBe("nginx:1.27");
  });

  it("treats missing claim templates as none", () => {
    const spec = { template: { spec: { containers: [] } } } as unknown as Parameters<
      typeof versionedContent
    >[0];
    expect(versionedContent(spec).volumeClaimTemplates).toEqual([]);
  });
});

describe("defaultPullPolicy", () => {
  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["nginx:1.27", "IfNotPresent"],
    ["localhost:5000/nginx", "Always"],
    ["localhost:5000/nginx:1.27", "IfNotPresent"],
    ["nginx@sha256:0123", "IfNotPresent"],
    [undefined, "IfNotPresent"],
  ])("%s -> %s", (image, expected) => {
    expect(defaultPullPolicy(image)).toBe(expected);
  });
});
