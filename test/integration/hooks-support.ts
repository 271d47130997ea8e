/**
 * Helpers of the lifecycle-hook integration tests (hooks.test.ts, hooks-takeover.test.ts):
 * hook records as the API shows them, and the kubectl plugin run as a user would.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { HookRecord } from "../../src/api/index.js";
import { eventually, REPO_ROOT } from "../support/cluster.js";
import { listVersions, type RolloutEnv, WAIT_MS } from "./rollout-support.js";

/** Every hook record on the PetSet's versions, oldest run first. */
export async function hookRecords(env: RolloutEnv, name: string): Promise<HookRecord[]> {
  return (await listVersions(env, name))
    .flatMap((v) => v.status?.hooks ?? [])
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
}

/** The first hook run of the PetSet waiting for an answer (a handshake still Running). */
export function pendingHandshake(env: RolloutEnv, name: string): Promise<HookRecord> {
  return eventually(
    "a pending handshake",
    async () => (await hookRecords(env, name)).find((r) => r.phase === "Running"),
    WAIT_MS,
  );
}

/**
 * Answers the handshake `id` (retried until the controller has written its request), then
 * every later one with `kubectl petset hook ack`, until `pets` hook runs succeeded.
 */
export async function answerHandshakes(
  env: RolloutEnv,
  name: string,
  id: string,
  pets: number,
  what = "the first hook answered",
): Promise<void> {
  await eventually(
    what,
    async () => ((await runPlugin(env, ["hook", "ack", name, id], true)).code === 0 ? true : undefined),
    WAIT_MS,
    500,
  );
  await eventually(
    `${pets} pets moved`,
    async () => {
      await runPlugin(env, ["hook", "ack", name], true);
      return (await hookRecords(env, name)).filter((r) => r.phase === "Succeeded").length === pets
        ? true
        : undefined;
    },
    WAIT_MS,
    500,
  );
}

const PLUGIN = join(REPO_ROOT, "dist", "src", "cli", "kubectl-petset.js");

function pluginArgs(env: RolloutEnv, args: string[]): string[] {
  return [
    PLUGIN,
    ...args.slice(0, 2),
    "-n",
    env.namespace,
    "--kubeconfig",
    env.cluster.kubeconfigPath,
    ...args.slice(2),
  ];
}

/** `kubectl petset ARGS` in the background (e.g. `observe`). */
export function spawnPlugin(env: RolloutEnv, args: string[]) {
  const i = args.indexOf("--");
  const head = i < 0 ? args : args.slice(0, i);
  const tail = i < 0 ? [] : args.slice(i);
  return spawn(process.execPath, [...pluginArgs(env, head), ...tail], { stdio: "ignore" });
}

/** `kubectl petset ARGS` to completion; throws on a non-zero exit unless `allowFail`. */
export async function runPlugin(
  env: RolloutEnv,
  args: string[],
  allowFail = false,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, pluginArgs(env, args), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  if (code !== 0 && !allowFail) throw new Error(`kubectl petset ${args.join(" ")}: exit ${code}: ${stderr}`);
  return { code, stdout, stderr };
}
