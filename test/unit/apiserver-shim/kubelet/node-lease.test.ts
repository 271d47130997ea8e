import type { CoordinationV1Api } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../../src/apiserver-shim/kubelet/clock.js";
import { NodeLeaseRenewer } from "../../../../src/apiserver-shim/kubelet/node-lease.js";

describe("NodeLeaseRenewer", () => {
  it("issue 29: a renewal whose answer never comes holds back its own node only; the others renew on time", async () => {
    const clock = new FakeClock();
    const sent: string[] = [];
    // The API server answers node b's first renewal never (a lost answer on a loaded server).
    const api = {
      patchNamespacedLease: (req: { name: string }) => {
        sent.push(req.name);
        if (req.name === "b" && sent.filter((n) => n === "b").length === 1)
          return new Promise(() => undefined);
        return Promise.resolve({});
      },
    } as unknown as CoordinationV1Api;
    const renewer = new NodeLeaseRenewer({
      api,
      clock,
      logger: pino({ level: "silent" }),
      nodes: () => ["a", "b"],
      isLost: () => false,
      uidOf: () => undefined,
      durationSeconds: 40,
    });
    renewer.start();
    await clock.advance(3 * renewer.renewMs);
    // a: at 0, 10, 20, 30 s; b: once, still waiting.
    expect(sent.filter((n) => n === "a")).toHaveLength(4);
    expect(sent.filter((n) => n === "b")).toHaveLength(1);
  });
});
