/**
 * The controller's bundle (hack/bundle.ts), what the container image runs: one file that
 * answers as the tsc build does, loads no other module for `controller` (the memory of issue
 * 29: client-node's unused API groups, the embedded server), and still runs `dev` and `demo`
 * from the tsc build beside it. Its behaviour against a cluster is covered by every test that
 * starts a controller process (test/support/controller.ts starts the bundle).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cluster.js";

const BUNDLE = join(REPO_ROOT, "dist", "src", "cli", "petset.bundle.js");
const dir = mkdtempSync(join(tmpdir(), "petset-bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function node(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe("the controller's bundle", () => {
  it("prints the package's version", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const r = await node([BUNDLE, "--version"]);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(pkg.version);
  });

  /** The files (not `node:` builtins) `script controller` loads besides `script` itself. */
  async function filesLoadedBeside(script: string): Promise<string[]> {
    const log = join(dir, `modules-${script.split("/").at(-1)}.txt`);
    const hook = join(REPO_ROOT, "test", "support", "record-module-loads.mjs");
    // A kubeconfig that does not exist: the controller loads all its code, then fails on it.
    const r = await node(["--import", hook, script, "controller", "--kubeconfig", join(dir, "none")], {
      PETSET_MODULE_LOG: log,
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(join(dir, "none"));
    const loaded = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    expect(loaded).toContain(pathToFileURL(script).href);
    return loaded.filter((u) => !u.startsWith("node:") && u !== pathToFileURL(script).href);
  }

  it("loads no module but itself and Node's own for the controller", async () => {
    expect(await filesLoadedBeside(BUNDLE)).toEqual([]);
    // The recorder sees modules: the tsc build loads client-node's files.
    const tsc = await filesLoadedBeside(join(REPO_ROOT, "dist", "src", "cli", "petset.js"));
    expect(tsc.some((u) => u.includes("/@kubernetes/client-node/"))).toBe(true);
  });

  it("requires none of Node's deprecated built-ins (Node 22+, the image's, warns of `punycode` on stderr at every start)", async () => {
    // Node 20 does not warn of it: record the built-ins the bundle requires instead.
    const log = join(dir, "builtins.txt");
    const preload = join(dir, "record-builtins.cjs");
    writeFileSync(
      preload,
      `const Module = require("node:module");
const { appendFileSync } = require("node:fs");
const load = Module._load;
Module._load = function (request, ...rest) {
  if (Module.isBuiltin(request)) appendFileSync(process.env.PETSET_BUILTIN_LOG, request + "\\n");
  return load.call(this, request, ...rest);
};
`,
    );
    const r = await node(["--require", preload, BUNDLE, "controller", "--kubeconfig", join(dir, "none")], {
      PETSET_BUILTIN_LOG: log,
    });
    expect(r.out).toContain(join(dir, "none"));
    const required = new Set(
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== ""),
    );
    // client-node's dependencies are required (the bundle keeps them as CommonJS): the recorder sees them.
    expect([...required].some((m) => m.replace(/^node:/, "") === "http")).toBe(true);
    expect([...required].filter((m) => m.replace(/^node:/, "") === "punycode")).toEqual([]);
  });

  it("runs dev and demo from the tsc build beside it", async () => {
    for (const command of ["dev", "demo"]) {
      const r = await node([BUNDLE, command, "--help"]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`Usage: petset ${command}`);
    }
  });
});
