/** What a Job container's process gets: its argv and env, from the container and the pod. */
import { describe, expect, it } from "vitest";
import {
  containerArgv,
  containerEnv,
  expandRefs,
  type PodFacts,
} from "../../../../src/apiserver-shim/kubelet/process-env.js";

const pod: PodFacts = {
  name: "migrate-abcde",
  namespace: "shop",
  uid: "u1",
  labels: { app: "db" },
  annotations: { "petset.dev/version": "3" },
  nodeName: "petset-node-0",
  serviceAccountName: "default",
  podIP: "10.244.0.7",
  hostIP: "10.0.0.10",
};
const base = { path: "/usr/bin:/bin", home: "/tmp/pod" };

describe("containerEnv", () => {
  it("resolves plain values, $(refs) and downward-API fieldRefs; nothing else from the host", () => {
    const env = containerEnv(
      {
        name: "c",
        env: [
          { name: "A", value: "x" },
          { name: "B", value: "$(A)-$$(A)-$(MISSING)" },
          { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: "V", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['petset.dev/version']" } } },
          { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          { name: "SECRET", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
        ],
      },
      pod,
      base,
    );
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/tmp/pod",
      HOSTNAME: "migrate-abcde",
      A: "x",
      B: "x-$(A)-$(MISSING)",
      POD: "migrate-abcde",
      APP: "db",
      V: "3",
      IP: "10.244.0.7",
    });
  });
});

describe("containerArgv", () => {
  it.each([
    [{ name: "c", command: ["sh", "-c"], args: ["echo $(A)"] }, ["sh", "-c", "echo x"]],
    [{ name: "c", command: ["true"] }, ["true"]],
    [{ name: "c", args: ["only-args"] }, undefined],
    [{ name: "c" }, undefined],
  ])("%j", (c, want) => {
    expect(containerArgv(c, { A: "x" })).toEqual(want);
  });
});

it("expandRefs leaves unknown references alone", () => {
  expect(expandRefs("$(X) $(Y) $$", { X: "1" })).toBe("1 $(Y) $");
});
