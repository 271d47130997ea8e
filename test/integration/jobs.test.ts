/**
 * batch/v1 Jobs as a user meets them, on every backend: a Job that succeeds, one that
 * exhausts its backoffLimit, one that runs past activeDeadlineSeconds, deleting a Job
 * (its pods go) and `kubectl get jobs`. Containers say what they do twice: a real command
 * (run as a process by the embedded server's simulated kubelet) and the
 * PETSET_SIMULATED_EXIT env var the kwok stages of the real test cluster read (see
 * docs/conformance.md, "Jobs").
 */
import { BatchV1Api, CoreV1Api, type V1Job, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, eventually, startTestCluster, type TestCluster } from "../support/cluster.js";

let cluster: TestCluster;
let ns: string;
let batch: BatchV1Api;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await cluster.namespace("jobs");
  batch = cluster.kubeConfig.makeApiClient(BatchV1Api);
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
});
afterAll(async () => {
  await cluster?.stop();
});

/** A container running `script` under sh; `simulatedExit` is what kwok makes of it. */
function job(name: string, script: string, simulatedExit: string, spec: Partial<V1Job["spec"]> = {}): V1Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: {
        spec: {
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "main",
              image: "busybox:1.36",
              command: ["sh", "-c", script],
              env: [{ name: "PETSET_SIMULATED_EXIT", value: simulatedExit }],
            },
          ],
        },
      },
    },
  };
}

const condition = (j: V1Job, type: string) =>
  j.status?.conditions?.find((c) => c.type === type && c.status === "True");

async function podsOf(name: string): Promise<V1Pod[]> {
  const list = await core.listNamespacedPod({
    namespace: ns,
    labelSelector: `batch.kubernetes.io/job-name=${name}`,
  });
  return list.items;
}

async function waitForCondition(name: string, type: string, timeoutMs = 60_000): Promise<V1Job> {
  return eventually(
    `job ${name} condition ${type}`,
    async () => {
      const j = await batch.readNamespacedJob({ name, namespace: ns });
      return condition(j, type) ? j : undefined;
    },
    timeoutMs,
  );
}

describe("batch/v1 Jobs", () => {
  it("are defaulted and labelled as kube does", async () => {
    const created = await batch.createNamespacedJob({ namespace: ns, body: job("defaults", "exit 0", "0") });
    const uid = created.metadata?.uid ?? "";
    expect(created.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: "TerminatingOrFailed",
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
    });
    expect(created.spec?.template.metadata?.labels).toEqual({
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": "defaults",
      "controller-uid": uid,
      "job-name": "defaults",
    });
  });

  it("complete: SuccessCriteriaMet then Complete, succeeded=1, the pod Succeeded", async () => {
    await batch.createNamespacedJob({ namespace: ns, body: job("ok", "exit 0", "0") });
    const done = await waitForCondition("ok", "Complete");
    expect(condition(done, "SuccessCriteriaMet")?.reason).toBe("CompletionsReached");
    expect(condition(done, "Complete")?.reason).toBe("CompletionsReached");
    expect(done.status?.succeeded).toBe(1);
    expect(done.status?.startTime).toBeTruthy();
    expect(done.status?.completionTime).toBeTruthy();
    const pods = await podsOf("ok");
    expect(pods.map((p) => p.status?.phase)).toEqual(["Succeeded"]);
    const owner = pods[0]?.metadata?.ownerReferences?.[0];
    expect(owner).toMatchObject({ kind: "Job", name: "ok", controller: true, blockOwnerDeletion: true });
  });

  it("fail with BackoffLimitExceeded after backoffLimit+1 failed pods, exit code recorded", async () => {
    await batch.createNamespacedJob({ namespace: ns, body: job("bad", "exit 3", "3", { backoffLimit: 1 }) });
    const failed = await waitForCondition("bad", "Failed", 90_000);
    expect(condition(failed, "FailureTarget")?.reason).toBe("BackoffLimitExceeded");
    expect(condition(failed, "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(failed.status?.failed).toBe(2);
    const pods = await podsOf("bad");
    expect(pods.map((p) => p.status?.phase)).toEqual(["Failed", "Failed"]);
    for (const p of pods) expect(p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(3);
  });

  it("fail with DeadlineExceeded past activeDeadlineSeconds, the running pod deleted", async () => {
    await batch.createNamespacedJob({
      namespace: ns,
      body: job("slow", "sleep 120", "never", { activeDeadlineSeconds: 2 }),
    });
    const failed = await waitForCondition("slow", "Failed");
    expect(condition(failed, "Failed")?.reason).toBe("DeadlineExceeded");
    await eventually("slow's pods gone", async () =>
      (await podsOf("slow")).length === 0 ? true : undefined,
    );
  });

  it("show in kubectl get jobs", async () => {
    await batch.createNamespacedJob({ namespace: ns, body: job("shown", "exit 0", "0") });
    await batch.createNamespacedJob({ namespace: ns, body: job("waiting", "sleep 120", "never") });
    await waitForCondition("shown", "Complete");
    const r = await cluster.kubectl(["get", "jobs", "-n", ns, "shown", "waiting"]);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
    expect(lines[1]).toMatch(/^shown\s+Complete\s+1\/1\s+\d+s\s+\d+s$/);
    expect(lines[2]).toMatch(/^waiting\s+Running\s+0\/1\s+\d+s\s+\d+s$/);
    const explain = await cluster.kubectl(["explain", "job.spec.backoffLimit"]);
    expect(explain.stdout).toContain("FIELD: backoffLimit <integer>");
    const wide = await cluster.kubectl(["get", "job", "-n", ns, "shown", "-o", "wide"]);
    expect(wide.stdout).toMatch(/CONTAINERS\s+IMAGES\s+SELECTOR/);
    expect(wide.stdout).toMatch(/main\s+busybox:1\.36\s+batch\.kubernetes\.io\/controller-uid=/);
  });

  it("go away ttlSecondsAfterFinished after they finish", async () => {
    await batch.createNamespacedJob({
      namespace: ns,
      body: job("short-lived", "exit 0", "0", { ttlSecondsAfterFinished: 1 }),
    });
    await eventually(
      "short-lived deleted after its TTL",
      async () => {
        const list = await batch.listNamespacedJob({
          namespace: ns,
          fieldSelector: "metadata.name=short-lived",
        });
        return list.items.length === 0 ? true : undefined;
      },
      60_000,
    );
  });

  it("can be created with kubectl create job", async () => {
    await cluster.kubectl([
      "create",
      "job",
      "cli",
      "-n",
      ns,
      "--image=busybox:1.36",
      "--",
      "sh",
      "-c",
      "exit 0",
    ]);
    const done = await waitForCondition("cli", "Complete");
    expect(done.status?.succeeded).toBe(1);
  });

  it("take their pods with them when deleted (background propagation)", async () => {
    await batch.createNamespacedJob({ namespace: ns, body: job("gone", "sleep 120", "never") });
    await eventually("gone's pod running", async () =>
      (await podsOf("gone")).some((p) => p.status?.phase === "Running") ? true : undefined,
    );
    await batch.deleteNamespacedJob({ name: "gone", namespace: ns, propagationPolicy: "Background" });
    await eventually("gone's pods deleted", async () =>
      (await podsOf("gone")).length === 0 ? true : undefined,
    );
  });

  it("refuse restartPolicy Always and template changes", async () => {
    const always = job("always", "exit 0", "0");
    always.spec!.template.spec!.restartPolicy = "Always";
    const refused = await cluster.kubectl(["create", "-n", ns, "-f", "-"], {
      input: JSON.stringify(always),
      allowFail: true,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'The Job "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    await batch.createNamespacedJob({ namespace: ns, body: job("fixed", "exit 0", "0") });
    const r = await cluster.kubectl(
      [
        "patch",
        "job",
        "fixed",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"busybox:1.37"}]',
      ],
      { allowFail: true },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/spec.template: Invalid value: .*field is immutable/);
  });

  it.runIf(backendFromEnv() === "embedded")(
    "embedded: the process sees the container's env and downward-API fields",
    async () => {
      const j = job(
        "env",
        'test "$GREETING" = hello && test "$POD" = "$HOSTNAME" && test "$NS" = "$EXPECTED_NS"',
        "0",
      );
      const c = j.spec!.template.spec!.containers[0]!;
      c.env = [
        { name: "GREETING", value: "hello" },
        { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
        { name: "EXPECTED_NS", value: ns },
      ];
      await batch.createNamespacedJob({
        namespace: ns,
        body: { ...j, spec: { ...j.spec!, backoffLimit: 0 } },
      });
      const done = await eventually("env finished", async () => {
        const got = await batch.readNamespacedJob({ name: "env", namespace: ns });
        return condition(got, "Complete") || condition(got, "Failed") ? got : undefined;
      });
      expect(condition(done, "Complete")).toBeTruthy();
    },
  );

  it.runIf(backendFromEnv() === "embedded")(
    "embedded: OnFailure restarts the failed container in the same pod",
    async () => {
      // Fails on the first run, succeeds on the second: the pod's working directory survives restarts.
      const j = job("retry", "if [ -f ran ]; then exit 0; fi; touch ran; exit 1", "0");
      j.spec!.template.spec!.restartPolicy = "OnFailure";
      await batch.createNamespacedJob({ namespace: ns, body: j });
      const done = await waitForCondition("retry", "Complete");
      expect(done.status?.succeeded).toBe(1);
      const pods = await podsOf("retry");
      expect(pods).toHaveLength(1);
      const cs = pods[0]?.status?.containerStatuses?.[0];
      expect(cs?.restartCount).toBe(1);
      expect(cs?.lastState?.terminated?.exitCode).toBe(1);
      expect(cs?.state?.terminated?.exitCode).toBe(0);
    },
  );
});
