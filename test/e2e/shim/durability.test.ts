/**
 * Acknowledged writes survive SIGKILL: a server in a child process (the shim compiled
 * with tsc), N writes, kill -9, restart on the same data dir, everything is there and the
 * resourceVersion counter continues.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KubeconfigFetch, kubeconfigAccess } from "./harness.js";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "../../..");
const build = join(repo, ".cache", `shim-durability-${process.pid}`);

async function startChild(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; fetch: KubeconfigFetch }> {
  const kubeconfig = join(build, `kubeconfig-${Date.now()}`);
  const child = spawn(process.execPath, [join(build, "run.mjs"), dataDir, kubeconfig], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((res, rej) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /ready (\S+)/.exec(out);
      if (m) res(m[1]!);
    });
    child.once("exit", (code) => rej(new Error(`server exited early (${code})`)));
  });
  return { child, url, fetch: (await kubeconfigAccess(kubeconfig)).fetch };
}

async function killed(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
}

describe("durability with a data dir", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "shim-data-"));
    await mkdir(build, { recursive: true });
    const tsconfig = {
      extends: join(repo, "tsconfig.json"),
      compilerOptions: {
        outDir: join(build, "out"),
        rootDir: repo,
        noEmit: false,
        sourceMap: false,
        typeRoots: [join(repo, "node_modules/@types")],
      },
      include: [join(repo, "src/apiserver-shim/**/*.ts")],
      exclude: [join(repo, "src/apiserver-shim/kubelet/**")],
    };
    await writeFile(join(build, "tsconfig.json"), JSON.stringify(tsconfig));
    await run(join(repo, "node_modules/.bin/tsc"), ["-p", join(build, "tsconfig.json")], { cwd: repo }).catch(
      (e: { stdout?: string }) => {
        // Type errors elsewhere must not hide a usable build; a missing output will fail below.
        if (!e.stdout) throw e;
      },
    );
    await writeFile(
      join(build, "run.mjs"),
      `import { startApiServer } from "./out/src/apiserver-shim/index.js";\nconst s = await startApiServer({ dataDir: process.argv[2] });\nawait s.writeKubeconfig(process.argv[3]);\nconsole.log("ready " + s.url);\n`,
    );
  }, 120_000);
  afterAll(async () => {
    await rm(build, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it("keeps every acknowledged write across kill -9", async () => {
    const first = await startChild(dataDir);
    const n = 200;
    let lastRv = 0;
    for (let i = 0; i < n; i++) {
      const res = await first.fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { i: String(i) } }),
      });
      expect(res.status).toBe(201);
      lastRv = Number(
        ((await res.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
      );
    }
    await killed(first.child);
    const second = await startChild(dataDir);
    try {
      const list = (await (
        await second.fetch(`${second.url}/api/v1/namespaces/default/configmaps`)
      ).json()) as {
        metadata: { resourceVersion: string };
        items: { metadata: { name: string }; data: { i: string } }[];
      };
      const names = new Set(list.items.map((i) => i.metadata.name));
      for (let i = 0; i < n; i++) expect(names.has(`cm-${i}`)).toBe(true);
      expect(Number(list.metadata.resourceVersion)).toBe(lastRv);
      const next = await second.fetch(`${second.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ metadata: { name: "after" } }),
      });
      const rv = Number(
        ((await next.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
      );
      expect(rv).toBe(lastRv + 1);
      const stale = await second.fetch(
        `${second.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=5`,
      );
      expect(await stale.text()).toContain('"code":410');
    } finally {
      await killed(second.child);
    }
  });
});
