/**
 * `pods/exec` as a user and the controller's hooks use it: the real kubectl (WebSocket,
 * v5.channel.k8s.io) and execInPod (client-node's Exec), the same code on both backends.
 * Where the backends differ, each one's documented behaviour is asserted (docs/conformance.md,
 * "pods/exec"): the embedded server runs the command with the container's environment in a
 * directory of the pod's own and reports exit codes as kube does; kwok runs it with a fixed
 * environment in one shared directory, reports a non-zero exit as an internal error naming
 * "exit status N", and never closes the command's stdin.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execInPod, OUTPUT_LIMIT, PodExecError } from "../../src/controller/hooks/pod-exec.js";
import { startTestCluster, type TestCluster } from "../support/cluster.js";

const WAIT = "--timeout=90s";
const POD = "web-0";

let cluster: TestCluster;
let ns: string;
const embedded = () => cluster.backend === "embedded";

const pod = (ns: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: POD, namespace: ns, labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          env: [
            { name: "GREETING", value: "hello" },
            { name: "PHRASE", value: "$(GREETING) world" },
            { name: "MY_POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "MY_APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          ],
        },
        { name: "sidecar", image: "busybox:1.36", env: [{ name: "ROLE", value: "sidecar" }] },
      ],
    },
  });

/**
 * kubectl 1.32 and 1.33 read the exec connection before they have created their streams
 * (client-go tools/remotecommand/websocket.go starts `readDemuxLoop` beside
 * `streamer.stream`; fixed upstream by kubernetes/kubernetes#131203, first in 1.34, not in
 * client-go 0.32.9 or 0.33.5): a frame that arrives first is dropped, and kubectl says so on
 * stderr. A command that ends at once (`cat` of a small file) can lose its whole output that
 * way when kubectl's goroutines are starved (`make test` on two cores): the server sent it, the
 * client threw it away (issue 24, the flaky "keeps the working directory" on kube-apiserver and
 * kwok). Only a run that carries that signature is run again; anything else is the answer.
 */
const CLIENT_DROPPED_FRAME = /Unknown stream id \d+, discarding message/;

async function exec(args: string[], input?: string) {
  for (let attempt = 1; ; attempt++) {
    const r = await cluster.kubectl(
      ["-n", ns, "exec", ...(input !== undefined ? ["-i"] : []), POD, ...args],
      {
        allowFail: true,
        ...(input !== undefined ? { input } : {}),
      },
    );
    if (!CLIENT_DROPPED_FRAME.test(r.stderr) || attempt === 3) return r;
  }
}

const run = (command: string[], more: { container?: string; stdin?: string; timeoutMs?: number } = {}) =>
  execInPod(cluster.kubeConfig, {
    namespace: ns,
    pod: POD,
    container: more.container ?? "app",
    command,
    ...(more.stdin !== undefined ? { stdin: more.stdin } : {}),
    timeoutMs: more.timeoutMs ?? 60_000,
  });

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = await cluster.namespace("exec");
  await cluster.kubectl(["apply", "-f", "-"], { input: pod(ns) });
  await cluster.kubectl(["-n", ns, "wait", "--for=condition=Ready", `pod/${POD}`, WAIT]);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("kubectl exec", () => {
  it("streams stdout and stderr apart", async () => {
    const r = await exec(["-c", "app", "--", "sh", "-c", "echo to-out; echo to-err >&2"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("to-out\n");
    expect(r.stderr).toContain("to-err");
  });

  it("propagates a non-zero exit", async () => {
    const r = await exec(["-c", "app", "--", "sh", "-c", "exit 3"]);
    if (embedded()) {
      // kubectl exits with the command's code, as against a real kubelet.
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("command terminated with exit code 3");
    } else {
      // kwok: an internal error that names the exit status; kubectl exits with 1. When the
      // command ends at once, kubectl 1.32's WebSocket client sometimes loses the race with
      // kwok's stream close ("Unknown stream id 1, discarding message … error: closed all
      // streams", seen with two test files at a time): the status is lost on kwok's path, not
      // ours (the embedded branch above is petset's own exec).
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/exit status 3|closed all streams/);
    }
  });

  it("forwards stdin with -i", async () => {
    const r = await exec(["-c", "app", "--", "sh", "-c", 'read line; echo "got $line"'], "hello pet\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("got hello pet\n");
    if (embedded()) {
      // The end of kubectl's stdin closes the command's (v5 close signal).
      const cat = await exec(["-c", "app", "--", "cat"], "line 1\nline 2\n");
      expect(cat.code).toBe(0);
      expect(cat.stdout).toBe("line 1\nline 2\n");
    }
  });

  it("runs in the container chosen with -c, with its environment where the backend passes it", async () => {
    const app = await exec(["-c", "app", "--", "sh", "-c", 'echo "$PHRASE|$MY_POD|$MY_APP|$ROLE"']);
    const side = await exec(["-c", "sidecar", "--", "sh", "-c", 'echo "$ROLE|$GREETING"']);
    expect(app.code).toBe(0);
    expect(side.code).toBe(0);
    if (embedded()) {
      expect(app.stdout).toBe("hello world|web-0|web|\n");
      expect(side.stdout).toBe("sidecar|\n");
    } else {
      // kwok runs every container's commands with the same fixed environment.
      expect(app.stdout).toBe("|||\n");
      expect(side.stdout).toBe("|\n");
      const backend = await exec(["-c", "sidecar", "--", "sh", "-c", "echo $PETSET_EXEC_BACKEND"]);
      expect(backend.stdout).toBe("kwok\n");
    }
  });

  it("keeps the working directory between commands", async () => {
    const write = await exec(["-c", "app", "--", "sh", "-c", "echo kept > exec-test-file && pwd"]);
    expect(write.code, `kubectl stderr: ${write.stderr}`).toBe(0);
    const read = await exec(["-c", "app", "--", "cat", "exec-test-file"]);
    // A failure names kubectl's own words: a file missing (cat's stderr) is not lost output.
    expect({ code: read.code, stdout: read.stdout }, `kubectl stderr: ${read.stderr}`).toEqual({
      code: 0,
      stdout: "kept\n",
    });
  });

  it("refuses an unknown container with the server's message", async () => {
    const r = await exec(["-c", "nope", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`container nope is not valid for pod ${POD}`);
  });

  it("reports a missing pod", async () => {
    const r = await cluster.kubectl(["-n", ns, "exec", "missing-0", "--", "true"], { allowFail: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pods "missing-0" not found');
  });

  it("reports a command that does not exist", async () => {
    const r = await exec(["-c", "app", "--", "no-such-command-petset"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"no-such-command-petset": executable file not found');
  });
});

describe("execInPod", () => {
  it("returns stdout, stderr and exit code 0", async () => {
    const r = await run(["sh", "-c", "echo out; echo err >&2"]);
    expect(r).toEqual({ exitCode: 0, stdout: "out\n", stderr: "err\n" });
  });

  it("returns a non-zero exit as a result", async () => {
    const r = await run(["sh", "-c", "echo partial; exit 7"]);
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toBe("partial\n");
  });

  it("writes stdin", async () => {
    const r = await run(["sh", "-c", 'read a; echo "[$a]"'], { stdin: "from hook\n" });
    expect(r).toMatchObject({ exitCode: 0, stdout: "[from hook]\n" });
  });

  it("keeps only the tail of a large output", async () => {
    const r = await run(["sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; echo END"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBe(OUTPUT_LIMIT);
    expect(r.stdout.endsWith("aaaEND\n")).toBe(true);
  });

  it("rejects with the server's reason and message", async () => {
    const missing = execInPod(cluster.kubeConfig, {
      namespace: ns,
      pod: "missing-0",
      container: "app",
      command: ["true"],
    });
    await expect(missing).rejects.toBeInstanceOf(PodExecError);
    await expect(missing).rejects.toMatchObject({ reason: "NotFound", code: 404 });
    await expect(missing).rejects.toThrow('pods "missing-0" not found');
    const container = run(["true"], { container: "nope" });
    await expect(container).rejects.toMatchObject({ reason: "BadRequest", code: 400 });
    await expect(container).rejects.toThrow(`container nope is not valid for pod ${POD}`);
  });

  it("rejects a command that outlives its timeout", async () => {
    const started = Date.now();
    const r = run(["sleep", "60"], { timeoutMs: 1_000 });
    await expect(r).rejects.toMatchObject({ reason: "Timeout" });
    await expect(r).rejects.toThrow("timed out after 1000ms");
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("rejects when aborted", async () => {
    const started = Date.now();
    const r = execInPod(cluster.kubeConfig, {
      namespace: ns,
      pod: POD,
      container: "app",
      command: ["sleep", "60"],
      signal: AbortSignal.timeout(1_000),
    });
    await expect(r).rejects.toMatchObject({ reason: "Aborted" });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it.runIf(process.env.PETSET_TEST_BACKEND !== "real" && process.env.PETSET_TEST_BACKEND !== "kubeconfig")(
    "the embedded server removes the pod's directory with the pod",
    async () => {
      const dir = (await run(["pwd"])).stdout.trim();
      expect(existsSync(dir)).toBe(true);
      await cluster.kubectl(["-n", ns, "delete", "pod", POD, "--wait=true", WAIT]);
      expect(existsSync(dir)).toBe(false);
    },
  );
});
