/**
 * `petset dev` as a user runs it is locked down: it makes a token, writes it only into its
 * kubeconfig (mode 0600, even over an older file that had another mode), kubectl works with
 * that kubeconfig, anything else is refused, and no token reaches its output, even at
 * `--log-level debug`. It starts its own server, so it runs once, on the embedded backend.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, eventually, REPO_ROOT } from "../support/cluster.js";
import { kubeconfigAccess } from "./shim/harness.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");
const embedded = backendFromEnv() === "embedded";

let dir: string;
let dev: ChildProcess | undefined;
let output = "";
let kubeconfig: string;

/** One GET to `petset dev` with exactly these headers; its status code. */
function status(url: string, headers: Record<string, string>, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, ca, servername: "localhost" }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "kubectl",
      ["--kubeconfig", kubeconfig, ...args],
      { env: { ...process.env, HOME: dir }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  if (!embedded) return;
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run make build first`);
  dir = mkdtempSync(join(tmpdir(), "petset-dev-lockdown-"));
  kubeconfig = join(dir, ".petset", "kubeconfig");
  // A kubeconfig left by an earlier, stopped server, readable by everyone.
  mkdirSync(join(dir, ".petset"));
  writeFileSync(
    kubeconfig,
    "apiVersion: v1\nkind: Config\nclusters: [{name: old, cluster: {server: 'https://127.0.0.1:1'}}]\n",
  );
  chmodSync(kubeconfig, 0o644);
  dev = spawn(process.execPath, [CLI, "dev", "--log-level", "debug"], { cwd: dir });
  const collect = (c: Buffer) => {
    output += c.toString();
  };
  dev.stdout?.on("data", collect);
  dev.stderr?.on("data", collect);
  await eventually(
    "petset dev to say it is ready",
    () => (output.includes("Ctrl-C stops it") ? true : undefined),
    60_000,
  );
});

afterAll(() => {
  dev?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!embedded)("petset dev, locked down", () => {
  it("writes its token into a kubeconfig of mode 0600 that kubectl uses", async () => {
    expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
    expect(output).toMatch(/^apiserver: https:\/\/127\.0\.0\.1:\d+$/m);
    const pods = await kubectl(["get", "pods", "-A"]);
    expect(pods).toEqual({ code: 0, stdout: "", stderr: "No resources found\n" });
    const created = await kubectl(["create", "configmap", "made-by-kubectl"]);
    expect(created).toEqual({ code: 0, stdout: "configmap/made-by-kubectl created\n", stderr: "" });
    const ns = await kubectl(["get", "namespaces", "-o", "name"]);
    expect(ns.stdout).toContain("namespace/kube-system");
  });

  it("refuses everyone else, and no token appears in its output", async () => {
    const { auth, ca } = await kubeconfigAccess(kubeconfig);
    const token = auth.Authorization!.slice("Bearer ".length);
    expect(token.length).toBeGreaterThanOrEqual(32);
    const server = /^apiserver: (\S+)$/m.exec(output)![1]!;
    const host = new URL(server).host;
    const url = `${server}/api/v1/namespaces/default/pods`;
    const wrong = "wrong-token-0123456789abcdef";
    expect(await status(url, { Host: host }, ca)).toBe(401);
    expect(await status(url, { Host: host, Authorization: `Bearer ${wrong}` }, ca)).toBe(401);
    expect(await status(url, { ...auth, Host: "rebound.example" }, ca)).toBe(403);
    expect(await status(url, { ...auth, Host: host, Origin: "https://page.example" }, ca)).toBe(403);
    expect(await status(`${url}?marker=last`, { ...auth, Host: host }, ca)).toBe(200);
    // Debug logs every request: once the last one is logged, the others are too.
    await eventually("the last request in the log", () =>
      output.includes("marker=last") ? true : undefined,
    );
    expect(output).toContain('"status":401');
    expect(output).not.toContain(token);
    expect(output).not.toContain(wrong);
    expect(readFileSync(kubeconfig, "utf8")).toContain(token);
  });
});
