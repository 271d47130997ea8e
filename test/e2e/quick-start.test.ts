/**
 * The first five minutes: what `make run` runs (its recipe, read with `make -n run`), verbatim
 * in a fresh folder that holds `dist/` and `examples/`, then the `export` lines it prints,
 * typed into a shell exactly as printed, then `kubectl petset` and `kubectl apply`. The README's
 * quick start is compared with what it printed. It starts its own embedded server, so it runs
 * once, on the embedded backend.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, eventually, REPO_ROOT } from "../support/cluster.js";

const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");

let dir: string;
let dev: ChildProcess | undefined;
let devOutput = "";
let recipe = "";

/** A shell in the fresh folder, as the user's own. */
function shell(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", script], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function runDev(...args: string[]): { child: ChildProcess; done: Promise<{ code: number; stderr: string }> } {
  const child = spawn(process.execPath, [CLI, "dev", "--log-level", "warn", ...args], { cwd: dir });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<{ code: number; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? 1, stderr })),
  );
  return { child, done };
}

/** The README's fenced block of `lang` that starts with `first` (without the fence). */
function readmeBlock(lang: string, first: string): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const block = [...readme.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, "g"))]
    .map((m) => m[1] ?? "")
    .find((b) => b.startsWith(first));
  if (block === undefined) throw new Error(`README.md has no ${lang} block starting with ${first}`);
  return block;
}

beforeAll(async () => {
  if (backendFromEnv() !== "embedded") return;
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run make build first`);
  dir = realpathSync(mkdtempSync(join(tmpdir(), "petset-quick-start-")));
  symlinkSync(join(REPO_ROOT, "dist"), join(dir, "dist"));
  symlinkSync(join(REPO_ROOT, "examples"), join(dir, "examples"));
  // The line make prints for `make run`, and runs: `node dist/src/cli/petset.js dev --apply examples/ …`.
  recipe =
    execFileSync("make", ["-n", "run"], { cwd: REPO_ROOT, encoding: "utf8" })
      .split("\n")
      .find((l) => l.includes("petset.js dev ")) ?? "";
  const [command, ...args] = recipe.split(" ");
  expect(command).toBe("node");
  dev = spawn(process.execPath, args, { cwd: dir });
  dev.stdout?.on("data", (c: Buffer) => {
    devOutput += c.toString();
  });
  await eventually(
    "petset dev to say it is ready",
    () => (devOutput.includes("Ctrl-C stops it") ? true : undefined),
    60_000,
  );
});

afterAll(() => {
  dev?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(backendFromEnv() !== "embedded")("petset dev: the first five minutes", () => {
  it("prints the exact export lines, and kubectl petset works after typing them", async () => {
    expect(devOutput).toContain(
      [
        "ready. In another shell, from this directory:",
        '  export PATH="$PWD/.petset/bin:$PATH"',
        '  export KUBECONFIG="$PWD/.petset/kubeconfig"',
      ].join("\n"),
    );
    expect(devOutput).toMatch(/^kubeconfig: .*\.petset\/kubeconfig$/m);
    accessSync(join(dir, ".petset", "bin", "kubectl-petset"), constants.X_OK);

    const exports = devOutput.split("\n").filter((l) => l.startsWith("  export "));
    expect(exports).toHaveLength(2);
    // The controller records version 1 of what --apply created, under petset-dev.
    const history = await eventually("version 1 in kubectl petset history", async () => {
      const r = await shell(`${exports.join("\n")}\nkubectl petset history web`);
      return r.code === 0 && /^1\s/m.test(r.stdout) ? r.stdout : undefined;
    });
    expect(history).toMatch(/^1\s+(current,update|update)\s+1\s+\S+\s+petset-dev\s+<none>/m);

    // The audit trail, from the versions' own records: who made version 1, and that it rolled out.
    const timeline = await eventually("version 1 fully rolled out in the timeline", async () => {
      const r = await shell(`${exports.join("\n")}\nkubectl petset history web --timeline -o json`);
      if (r.code !== 0) return undefined;
      const entries = JSON.parse(r.stdout) as { version: number; what: string; detail: string }[];
      return entries.some((e) => e.version === 1 && e.what === "fullyRolledOut") ? entries : undefined;
    });
    expect(timeline[0]).toMatchObject({ version: 1, what: "created" });
    expect(timeline[0]?.detail).toMatch(/^by petset-dev/);
    expect(timeline.map((e) => e.what)).toEqual(expect.arrayContaining(["observed", "becameCurrent"]));
  });

  it("issue 31 item 3: the README's quick start shows exactly what make run prints", () => {
    const shown = readmeBlock("console", "$ make run\n");
    const printed = devOutput
      .replaceAll(dir, "DIR")
      .replace(/^apiserver: https:\/\/127\.0\.0\.1:\d+$/m, "apiserver: https://127.0.0.1:PORT");
    expect(shown).toBe(`$ make run\n${recipe}\n${printed}`);
    // The block to copy is the printed lines to type, as printed.
    const toType = devOutput
      .split("\n")
      .filter((l) => l.startsWith("  "))
      .map((l) => l.slice(2));
    expect(readmeBlock("sh", "export PATH=")).toBe(`${toType.join("\n")}\n`);
  });

  it("issue 31 item 3: the first kubectl apply of every example after make run says unchanged, with no warning", async () => {
    const files = readdirSync(join(REPO_ROOT, "examples")).filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(files.length).toBeGreaterThan(3);
    const exports = devOutput.split("\n").filter((l) => l.startsWith("  export "));
    for (const file of files) {
      const r = await shell(`${exports.join("\n")}\nkubectl apply -f examples/${file}`);
      expect(r, file).toMatchObject({ code: 0, stderr: "" });
      const lines = r.stdout.trim().split("\n");
      expect(lines.length, file).toBeGreaterThan(0);
      for (const line of lines) expect(line, file).toMatch(/^\S+ unchanged$/);
    }
  });

  it("a second petset dev in the same folder refuses to take over the first one's kubeconfig", async () => {
    const origin = /^apiserver: (http\S+)$/m.exec(devOutput)?.[1];
    expect(await runDev().done).toEqual({
      code: 1,
      stderr: `error: another petset dev (make run) is serving ${origin} with .petset/kubeconfig: use that one, stop it first, or pass --kubeconfig OTHER_PATH\n`,
    });
  });

  it("a second petset dev on the same port fails with one line that says what to do", async () => {
    const port = /^apiserver: https:\/\/127\.0\.0\.1:(\d+)$/m.exec(devOutput)?.[1];
    expect(port).toBeDefined();
    const second = runDev("--port", String(port), "--kubeconfig", "other/kubeconfig");
    expect(await second.done).toEqual({
      code: 1,
      stderr: `error: 127.0.0.1:${port} is already in use (another petset dev or make run?): stop it, or pass --port 0 to pick a free port\n`,
    });
  });
});
