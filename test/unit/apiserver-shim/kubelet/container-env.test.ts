import { describe, expect, it } from "vitest";
import { isLoopback } from "../../../../src/apiserver-shim/http/request-guard.js";
import {
  type ExecPod,
  expandVars,
  podFieldValue,
  resolveContainerEnv,
} from "../../../../src/apiserver-shim/kubelet/container-env.js";

const pod: ExecPod = {
  metadata: {
    name: "web-0",
    namespace: "shop",
    uid: "u-1",
    labels: { "apps.kubernetes.io/pod-index": "0", app: "web" },
    annotations: { note: "x" },
  },
  spec: { nodeName: "node-1", serviceAccountName: "default", containers: [{ name: "app" }] },
  status: { phase: "Running", podIP: "10.244.0.5", podIPs: [{ ip: "10.244.0.5" }], hostIP: "10.240.0.1" },
};

const sources = {
  configMap: (name: string) => (name === "cfg" ? { MODE: "fast", "bad key": "x" } : undefined),
  secret: (name: string) => (name === "sec" ? { PASSWORD: "hunter2" } : undefined),
};

describe("podFieldValue", () => {
  it.each([
    ["metadata.name", "web-0"],
    ["metadata.namespace", "shop"],
    ["metadata.uid", "u-1"],
    ["metadata.labels['apps.kubernetes.io/pod-index']", "0"],
    ["metadata.labels['missing']", ""],
    ["metadata.annotations", 'note="x"'],
    ["spec.nodeName", "node-1"],
    ["spec.serviceAccountName", "default"],
    ["status.podIP", "10.244.0.5"],
    ["status.podIPs", "10.244.0.5"],
    ["status.hostIP", "10.240.0.1"],
    ["spec.containers", undefined],
  ])("%s -> %s", (path, want) => {
    expect(podFieldValue(pod, path)).toBe(want);
  });
});

describe("expandVars", () => {
  it.each([
    ["db-$(ORD)", "db-3"],
    ["$$(ORD)", "$(ORD)"],
    ["$(UNKNOWN)-x", "$(UNKNOWN)-x"],
    ["plain", "plain"],
  ])("%s -> %s", (value, want) => {
    expect(expandVars(value, { ORD: "3" })).toBe(want);
  });
});

describe("resolveContainerEnv", () => {
  it("applies envFrom, then env in order with expansion, field and key refs", () => {
    const { env, skipped } = resolveContainerEnv(
      pod,
      {
        name: "app",
        envFrom: [{ configMapRef: { name: "cfg" } }, { prefix: "S_", secretRef: { name: "sec" } }],
        env: [
          {
            name: "ORD",
            valueFrom: { fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } },
          },
          { name: "PEER", value: "web-$(ORD)" },
          { name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "MODE" } } },
          { name: "PW", valueFrom: { secretKeyRef: { name: "sec", key: "PASSWORD" } } },
          { name: "OPT", valueFrom: { configMapKeyRef: { name: "nope", key: "k", optional: true } } },
        ],
      },
      sources,
    );
    expect(env).toEqual({ MODE: "fast", S_PASSWORD: "hunter2", ORD: "0", PEER: "web-0", PW: "hunter2" });
    expect(skipped).toEqual([
      "pod shop/web-0 container app: envFrom[0].configMapRef: cfg: invalid variable name bad key",
    ]);
  });

  it("skips what it cannot resolve and names the field", () => {
    const { env, skipped } = resolveContainerEnv(
      pod,
      {
        name: "app",
        envFrom: [{ configMapRef: { name: "gone" } }],
        env: [
          { name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
          { name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "absent" } } },
          { name: "F", valueFrom: { fieldRef: { fieldPath: "spec.containers" } } },
        ],
      },
      sources,
    );
    expect(env).toEqual({});
    expect(skipped).toEqual([
      "pod shop/web-0 container app: envFrom[0].configMapRef: gone not found",
      "pod shop/web-0 container app: env[0] (CPU): valueFrom resourceFieldRef is not supported by the simulated kubelet",
      "pod shop/web-0 container app: env[1] (X): configMapKeyRef cfg/absent not found",
      "pod shop/web-0 container app: env[2] (F): fieldRef spec.containers is not supported",
    ]);
  });
});

describe("isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["10.0.0.1", false],
    ["::ffff:192.168.1.2", false],
    [undefined, false],
  ])("%s -> %s", (address, want) => {
    expect(isLoopback(address)).toBe(want);
  });
});
