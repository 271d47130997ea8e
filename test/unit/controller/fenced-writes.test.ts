/**
 * Fencing against a server that logs what reaches it (the embedded API server on loopback,
 * its `onRequest` hook): a write the fence refuses never leaves the process, and a Lease
 * update decided on a read that outlived the renew deadline (a freeze mid-renew) is not sent.
 * Monotonic time is a fake the test moves; the HTTP is real.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoordinationV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, type ReceivedRequest, startApiServer } from "../../../src/apiserver-shim/index.js";
import { startLeaderElection } from "../../../src/controller/leader-election.js";
import {
  isLeaseLost,
  LeaseFence,
  type LeaseGuard,
  makeFencedApiClient,
  systemMonotonicClock,
  unfencedGuard,
} from "../../../src/controller/lease-guard.js";
import { systemClock } from "../../../src/util/clock.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { createLogger } from "../../../src/util/logger.js";

let server: ApiServer;
let kubeConfig: KubeConfig;
let dir: string;
const received: ReceivedRequest[] = [];
/** Runs on each request as the server receives it. */
let onRequest: (r: ReceivedRequest) => void = () => {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-fence-"));
  server = await startApiServer({
    onRequest: (r) => {
      received.push(r);
      onRequest(r);
    },
  });
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  kubeConfig = loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const writesBy = (agent: string) => received.filter((r) => r.method !== "GET" && r.userAgent === agent);

describe("fenced writes against a real HTTP server", () => {
  it("a write the fence refuses never reaches the server; reads still do", async () => {
    let now = 0;
    const fence = new LeaseFence({ now: () => now }, 3_000);
    const agent = "petset-controller/test (fence-unit)";
    const api = makeFencedApiClient(kubeConfig, CoreV1Api, fence, { "User-Agent": agent });
    const configMap = (name: string) => ({ namespace: "default", body: { metadata: { name } } });

    fence.renewed(0);
    now = 1_000; // 2 s of validity left (a write in flight longer than that is aborted)
    await api.createNamespacedConfigMap(configMap("while-held"));
    expect(writesBy(agent).map((r) => r.method)).toEqual(["POST"]);

    now = 3_000; // validFor after the renew was sent: not sure any more
    const refused = await api.createNamespacedConfigMap(configMap("after-margin")).catch((e: unknown) => e);
    expect(isLeaseLost(refused)).toBe(true);
    await api.readNamespacedConfigMap({ name: "while-held", namespace: "default" });
    expect(writesBy(agent).map((r) => r.url)).toEqual(["/api/v1/namespaces/default/configmaps"]);

    fence.lose("test");
    fence.renewed(3_000); // a late renew never revives a lost fence
    const afterLoss = await api
      .deleteNamespacedConfigMap({ name: "while-held", namespace: "default" })
      .catch((e: unknown) => e);
    expect(isLeaseLost(afterLoss)).toBe(true);
    expect(writesBy(agent)).toHaveLength(1);
  });

  it("a replica frozen after a write passed the check, before it went out, sends nothing", async () => {
    const fence = new LeaseFence(systemMonotonicClock, 100);
    fence.renewed(performance.now());
    let frozen = false;
    // The fence, and a freeze (the whole thread blocked, as under SIGSTOP) right after the
    // first check passed: the write has been checked but not sent. The write's deadline and
    // the check once connected (fenced-connection.ts) both stand between it and the server.
    const guard: LeaseGuard = {
      signal: fence.signal,
      remainingMs: () => fence.remainingMs(),
      check() {
        fence.check();
        if (frozen) return;
        frozen = true;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
      },
    };
    const agent = "petset-controller/test (frozen-after-check)";
    const api = makeFencedApiClient(kubeConfig, CoreV1Api, guard, { "User-Agent": agent });
    const err = await api
      .createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "frozen" } } })
      .catch((e: unknown) => e);
    expect(frozen).toBe(true);
    expect(err).toBeInstanceOf(Error);
    expect(writesBy(agent)).toEqual([]);
  });

  it("a replica frozen while it reads the Lease does not send the update it decided on", async () => {
    let now = 0;
    const agent = "petset-controller/test (elector-unit)";
    let leading = false;
    let lost = false;
    const elector = startLeaderElection({
      kubeConfig,
      namespace: "default",
      name: "frozen-mid-renew",
      identity: "elector-unit",
      clock: systemClock,
      logger: createLogger("silent"),
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 20,
      monotonicClock: { now: () => now },
      headers: { "User-Agent": agent },
      onStartedLeading: () => {
        leading = true;
      },
      onStoppedLeading: () => {
        lost = true;
      },
    });
    try {
      await until(() => leading && writesBy(agent).length >= 2); // created, then renewed once
      // The next read of the Lease takes 10 s of monotonic time: a SIGSTOP mid-renew.
      const writesBeforeFreeze = writesBy(agent).length;
      onRequest = (r) => {
        if (r.userAgent === agent && r.method === "GET") {
          now += 10_000;
          onRequest = () => {};
        }
      };
      await until(() => lost);
      expect(writesBy(agent)).toHaveLength(writesBeforeFreeze);
      expect(() => elector.guard.check()).toThrow(/not the leader/);
      expect(elector.guard.signal.aborted).toBe(true);
    } finally {
      onRequest = () => {};
      await elector.stop({ release: false });
    }
  });
});

describe("losing the Lease to another holder", () => {
  it("a leader that reads another holder stops at once, however little time its clock saw pass", async () => {
    const agent = "petset-controller/test (suspended-unit)";
    let leading = false;
    let lost = false;
    const elector = startLeaderElection({
      kubeConfig,
      namespace: "default",
      name: "taken-over",
      identity: "suspended-unit",
      clock: systemClock,
      logger: createLogger("silent"),
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 20,
      // Monotonic time stands still: a machine suspended while another replica took over.
      monotonicClock: { now: () => 0 },
      headers: { "User-Agent": agent },
      onStartedLeading: () => {
        leading = true;
      },
      onStoppedLeading: () => {
        lost = true;
      },
    });
    try {
      await until(() => leading);
      const leases = kubeConfig.makeApiClient(CoordinationV1Api);
      const lease = await leases.readNamespacedLease({ name: "taken-over", namespace: "default" });
      await leases.replaceNamespacedLease({
        name: "taken-over",
        namespace: "default",
        body: { ...lease, spec: { ...lease.spec, holderIdentity: "successor" } },
      });
      await until(() => lost);
      expect(() => elector.guard.check()).toThrow(/held by successor/);
      // A renew already on its way when the Lease was taken fails on its resourceVersion.
      const after = await leases.readNamespacedLease({ name: "taken-over", namespace: "default" });
      expect(after.spec?.holderIdentity).toBe("successor");
      const writesAtLoss = writesBy(agent).length;
      await elector.stop({ release: true }); // nothing to release: it no longer leads
      expect(writesBy(agent)).toHaveLength(writesAtLoss);
    } finally {
      await elector.stop({ release: false });
    }
  });
});

/** Polls a condition of this process's own state (no API involved) for up to 3 s. */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 3 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Counterexample from CI (network-faults, blackhole): a GET the proxy accepted and never
// answered held a sync worker for good, and the rollout never finished.
describe("requests to a server that never answers", () => {
  it("a read or a write is aborted after the request timeout", async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "silent", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: "u" }],
      contexts: [{ name: "c", cluster: "silent", user: "u" }],
      currentContext: "c",
    });
    try {
      const api = makeFencedApiClient(kc, CoreV1Api, unfencedGuard, {}, 300);
      const started = performance.now();
      await expect(api.readNamespacedPod({ namespace: "default", name: "web-0" })).rejects.toThrow();
      await expect(
        api.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "x" } } }),
      ).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
