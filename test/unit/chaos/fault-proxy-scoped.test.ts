/**
 * The fault proxy's scoped faults (test/chaos/fault-proxy.ts), each shown doing what it says,
 * in front of the embedded API server (and of a webhook receiver) on loopback:
 * - lost-answer (the indeterminate write): the request reached the server and was applied, the
 *   client saw a reset (drop) or no answer yet (delay);
 * - status-burst scoped to resources: the requests in scope got a 429/503 and never reached the
 *   server, the others passed and did not use the burst up;
 * - both on pods/exec (an upgrade) and on a hook's webhook.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BatchV1Api, CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, startApiServer } from "../../../src/apiserver-shim/index.js";
import { execInPod } from "../../../src/controller/hooks/pod-exec.js";
import { loadKubeConfig } from "../../../src/util/kubeconfig.js";
import { type FaultProxy, startFaultProxy } from "../../chaos/fault-proxy.js";
import { resourceOf } from "../../chaos/fault-scope.js";

let server: ApiServer;
let direct: KubeConfig;
let proxy: FaultProxy;
let dir: string;
const NS = "default";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petset-proxy-scoped-"));
  server = await startApiServer({});
  await server.writeKubeconfig(join(dir, "kubeconfig"));
  direct = loadKubeConfig({ kubeconfig: join(dir, "kubeconfig") });
  proxy = await startFaultProxy(direct);
  // A pod the exec tests run in: bound and Running, as the simulated kubelet would leave it.
  const core = direct.makeApiClient(CoreV1Api);
  await core.createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name: "exec-0" },
      spec: { nodeName: "node-0", containers: [{ name: "app", image: "busybox" }] },
    },
  });
  const pod = await core.readNamespacedPod({ name: "exec-0", namespace: NS });
  const running: V1Pod = {
    ...pod,
    status: {
      phase: "Running",
      containerStatuses: [
        {
          name: "app",
          image: "busybox",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date() } },
        },
      ],
    },
  };
  await core.replaceNamespacedPodStatus({ name: "exec-0", namespace: NS, body: running });
});

afterAll(async () => {
  await proxy?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const job = (name: string) => ({
  metadata: { name },
  spec: {
    template: {
      spec: { restartPolicy: "Never", containers: [{ name: "m", image: "busybox", command: ["true"] }] },
    },
  },
});
const configMap = (name: string) => ({ metadata: { name }, data: { a: "b" } });

async function until(what: string, cond: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const exists = (read: () => Promise<unknown>) =>
  read().then(
    () => true,
    () => false,
  );

const exec = (kc: KubeConfig, command: string[]) =>
  execInPod(kc, { namespace: NS, pod: "exec-0", container: "app", command, timeoutMs: 20_000 });

describe("resourceOf", () => {
  it.each([
    ["/api/v1/namespaces/ns/pods", "pods"],
    ["/api/v1/namespaces/ns/pods/web-0", "pods"],
    ["/api/v1/namespaces/ns/pods/web-0/exec", "pods/exec"],
    ["/apis/batch/v1/namespaces/ns/jobs/migrate", "jobs"],
    ["/apis/petset.dev/v1alpha1/namespaces/ns/petsets/web/status", "petsets/status"],
    ["/api/v1/nodes/n1/status", "nodes/status"],
    ["/api/v1/namespaces/ns", "namespaces"],
    ["/version", "/version"],
  ])("%s is %s", (path, resource) => {
    expect(resourceOf(path)).toBe(resource);
  });
});

describe("lost-answer: the request is applied, its answer lost", () => {
  it("drop on jobs: the Job is created, the client sees a reset; a ConfigMap beside it passes", async () => {
    proxy.set([{ kind: "lost-answer", resources: ["jobs"], count: 1, answer: "drop" }]);
    const viaProxy = proxy.kubeconfig.makeApiClient(BatchV1Api);
    const err = await viaProxy
      .createNamespacedJob({ namespace: NS, body: job("migrate-1") })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toMatch(/ECONNRESET|socket hang up|reset/i);
    const batch = direct.makeApiClient(BatchV1Api);
    expect((await batch.readNamespacedJob({ name: "migrate-1", namespace: NS })).metadata?.name).toBe(
      "migrate-1",
    );
    // Out of scope: answered as usual, and the fault is not used up by it.
    const cm = await proxy.kubeconfig
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: NS, body: configMap("beside-1") });
    expect(cm.metadata?.name).toBe("beside-1");
    // count: 1 is spent: the next Job create is answered.
    const next = await viaProxy.createNamespacedJob({ namespace: NS, body: job("migrate-2") });
    expect(next.metadata?.name).toBe("migrate-2");
    expect(proxy.stats()["lost-answer-dropped"]).toBe(1);
    proxy.clear();
  });

  it("delay on configmaps: the object exists while the client still has no answer", async () => {
    proxy.set([
      { kind: "lost-answer", resources: ["configmaps"], count: 1, answer: "delay", delayMs: 3_600_000 },
    ]);
    const server = new URL(proxy.kubeconfig.getCurrentCluster()?.server ?? "");
    let answered = false;
    const req = request({
      hostname: server.hostname,
      port: server.port,
      path: `/api/v1/namespaces/${NS}/configmaps`,
      method: "POST",
      ca: proxy.caCert,
      headers: { "Content-Type": "application/json" },
    });
    req.on("response", () => {
      answered = true;
    });
    req.on("error", () => {});
    req.end(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", ...configMap("delayed-1") }));
    const core = direct.makeApiClient(CoreV1Api);
    await until("the ConfigMap is created", () =>
      exists(() => core.readNamespacedConfigMap({ name: "delayed-1", namespace: NS })),
    );
    expect(answered).toBe(false);
    expect(proxy.stats()["lost-answer-delayed"]).toBe(1);
    req.destroy(); // the client gives up, as a timeout would, on a write that happened
    proxy.clear();
  });

  it("drop on pods/exec: the command runs, the client sees its connection fail", async () => {
    proxy.set([{ kind: "lost-answer", resources: ["pods/exec"], count: 1, answer: "drop" }]);
    const err = await exec(proxy.kubeconfig, ["sh", "-c", "echo ran > lost-answer-marker"]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    await until("the command ran", async () => {
      const r = await exec(direct, ["sh", "-c", "cat lost-answer-marker 2>/dev/null || true"]);
      return r.stdout === "ran\n";
    });
    expect(proxy.stats()["lost-answer-dropped"]).toBe(2);
    proxy.clear();
  });
});

describe("status-burst scoped to resources", () => {
  it("503 on pods/exec: the exec is refused with 503 and never runs, reads of pods pass, then exec passes", async () => {
    proxy.set([{ kind: "status-burst", code: 503, count: 1, resources: ["pods/exec"] }]);
    const pod = await proxy.kubeconfig
      .makeApiClient(CoreV1Api)
      .readNamespacedPod({ name: "exec-0", namespace: NS });
    expect(pod.metadata?.name).toBe("exec-0");
    const refused = await exec(proxy.kubeconfig, ["sh", "-c", "echo refused > burst-marker"]).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: 503 });
    const after = await exec(proxy.kubeconfig, ["sh", "-c", "cat burst-marker 2>/dev/null; echo passes"]);
    expect(after).toMatchObject({ exitCode: 0, stdout: "passes\n" }); // the refused one never ran
    expect(proxy.stats()["status-503"]).toBe(1);
    proxy.clear();
  });

  it("429 on jobs: Job creates are refused and never reach the server, ConfigMap creates pass", async () => {
    proxy.set([{ kind: "status-burst", code: 429, count: 2, resources: ["jobs"] }]);
    const viaProxy = proxy.kubeconfig.makeApiClient(BatchV1Api);
    for (const name of ["burst-1", "burst-2"]) {
      const err = await viaProxy
        .createNamespacedJob({ namespace: NS, body: job(name) })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 429 });
    }
    await proxy.kubeconfig
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: NS, body: configMap("beside-2") });
    const batch = direct.makeApiClient(BatchV1Api);
    expect(await exists(() => batch.readNamespacedJob({ name: "burst-1", namespace: NS }))).toBe(false);
    expect(await exists(() => batch.readNamespacedJob({ name: "burst-2", namespace: NS }))).toBe(false);
    expect((await viaProxy.createNamespacedJob({ namespace: NS, body: job("burst-3") })).metadata?.name).toBe(
      "burst-3",
    );
    proxy.clear();
  });
});

describe("a hook's webhook behind the proxy", () => {
  let receiver: Server;
  let webhookProxy: FaultProxy;
  let received = 0;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received++;
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ response: { result: "Succeeded" } }));
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    webhookProxy = await startFaultProxy({
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    });
  });

  afterAll(async () => {
    await webhookProxy?.stop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const post = () =>
    fetch(`${webhookProxy.url}/hook`, { method: "POST", body: "{}" }).then(
      (r) => r.status,
      (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
    );

  it("429 burst on webhook: the babysitter never sees the request; lost answer: it does, the caller does not", async () => {
    webhookProxy.set([{ kind: "status-burst", code: 429, count: 1, resources: ["webhook"] }]);
    expect(await post()).toBe(429);
    expect(received).toBe(0);
    webhookProxy.set([{ kind: "lost-answer", resources: ["webhook"], count: 1, answer: "drop" }]);
    expect(await post()).toBeInstanceOf(Error);
    expect(received).toBe(1);
    webhookProxy.clear();
    expect(await post()).toBe(200);
    expect(received).toBe(2);
  });
});
