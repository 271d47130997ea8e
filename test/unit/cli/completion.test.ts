import { describe, expect, it } from "vitest";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import type { ConnectionFlags } from "../../../src/cli/plugin/kubeconfig.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { NOW, petSet } from "./fixtures.js";

/** Runs the plugin; `connect` fails unless a test gives an API (only NAME slots connect). */
async function run(...args: string[]) {
  return runWith(
    () => {
      throw new Error("this completion must not connect to a cluster");
    },
    ...args,
  );
}

async function runWith(connect: PluginDeps["connect"], ...args: string[]) {
  const out: string[] = [];
  const deps: PluginDeps = {
    io: {
      stdout: { write: (s) => void out.push(s), isTTY: false },
      stderr: { write: () => {}, isTTY: false },
    },
    clock: { now: () => NOW },
    connect,
  };
  const code = await runPlugin(args, deps);
  return { code, stdout: out.join("") };
}

/** The values `kubectl-petset __complete WORDS...` offers, and its directive. */
async function completions(...words: string[]): Promise<{ values: string[]; directive: string }> {
  const { code, stdout } = await run("__complete", ...words);
  expect(code).toBe(0);
  const lines = stdout.trimEnd().split("\n");
  return { values: lines.slice(0, -1).map((l) => l.split("\t")[0] ?? ""), directive: lines.at(-1) ?? "" };
}

describe("kubectl-petset __complete", () => {
  it.each<[string[], string[]]>([
    [
      [""],
      [
        "history",
        "diff",
        "rollback",
        "pause",
        "resume",
        "restart",
        "status",
        "promote",
        "abort",
        "set",
        "completion",
        "adopt",
        "release",
        "convert",
        "hook",
        "observe",
        "replace",
        "scale",
      ],
    ],
    [["re"], ["resume", "restart", "release", "replace"]],
    [
      ["set", ""],
      ["image", "env"],
    ],
    [["set", "image", "web", "--d"], ["--dry-run"]],
    [
      ["history", "web", "-o", ""],
      ["table", "wide", "yaml", "json"],
    ],
    [["history", "web", "--output", "y"], ["yaml"]],
    [
      ["diff", "web", "1", "--color="],
      ["--color=auto", "--color=always", "--color=never"],
    ],
    [["rollback", "web", "--dry-run=s"], ["--dry-run=server"]],
    [
      ["completion", ""],
      ["bash", "zsh"],
    ],
    [["history", "web", ""], []],
    [["nope", ""], []],
  ])("%j -> %j", async (words, expected) => {
    expect((await completions(...words)).values).toEqual(expected);
  });

  it("offers every flag of the command, with descriptions, and no files", async () => {
    const { stdout } = await run("__complete", "status", "web", "--");
    expect(stdout).toBe(
      [
        "--namespace\tnamespace of the PetSet (default: the context's, else default)",
        "--kubeconfig\tkubeconfig file (default: $KUBECONFIG, else ~/.kube/config)",
        "--context\tkubeconfig context to use",
        "--watch\tfollow the rollout until it completes or fails",
        "--timeout\tgive up after this long (exit 2); implies waiting",
        "--help\tusage and examples",
        ":4",
        "",
      ].join("\n"),
    );
  });

  it("completes a value after other flags, and lets the shell complete --kubeconfig paths", async () => {
    expect(await completions("history", "web", "-n", "shop", "--kubeconfig", "kc", "-o", "j")).toEqual({
      values: ["json"],
      directive: ":4",
    });
    expect(await completions("history", "--kubeconfig", "")).toEqual({ values: [], directive: ":0" });
  });
});

describe("completion of a PetSet NAME", () => {
  it("offers the namespace's PetSets, asking the cluster the typed flags point at", async () => {
    const api = new FakePetSetApi();
    api.put(petSet());
    api.put({ ...petSet(), metadata: { ...petSet().metadata, name: "db" } });
    const connections: ConnectionFlags[] = [];
    const connect = (flags: ConnectionFlags) => {
      connections.push(flags);
      return api;
    };
    const r = await runWith(connect, "__complete", "set", "image", "-n", "shop", "--kubeconfig=kc", "");
    expect(r.stdout).toBe("db\tpetset in default\nweb\tpetset in default\n:4\n");
    expect(connections).toEqual([{ namespace: "shop", kubeconfig: "kc" }]);
    expect((await runWith(connect, "__complete", "history", "w")).stdout).toBe(
      "web\tpetset in default\n:4\n",
    );
  });

  it("offers none, quietly, when the cluster cannot be reached", async () => {
    expect(await run("__complete", "status", "")).toEqual({ code: 0, stdout: ":4\n" });
  });
});

describe("kubectl petset completion", () => {
  it("prints the bash and zsh scripts, and rejects other shells", async () => {
    const bash = await run("completion", "bash");
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain("complete -o filenames -F _kubectl_petset kubectl-petset\n");
    const zsh = await run("completion", "zsh");
    expect(zsh.stdout).toMatch(/^#compdef kubectl-petset\n/);
    expect((await run("completion", "fish")).code).toBe(1);
  });
});
