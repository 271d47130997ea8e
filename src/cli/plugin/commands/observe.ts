/**
 * `kubectl petset observe NAME [--interval D] [--once] -- COMMAND [ARGS...]`: the babysitter as
 * a script. Watches the PetSet's pending `external` hook requests (its pods' and its own
 * hooks.petset.dev/request annotations), runs COMMAND once per request with the hook's
 * context as environment variables (PETSET_HOOK, PETSET_POD, PETSET_ORDINAL, …, PETSET_HOOK_ID)
 * and answers from its exit code: 0 acknowledges, anything else fails the hook with the last
 * line of its stderr as the message. Requests of different pets run concurrently; one request
 * is never run twice by the same observer (the controller may ask again after a restart: the
 * id stays the same, so the script can be idempotent). --once answers what is pending now and
 * exits; otherwise it runs until interrupted (SIGINT/SIGTERM).
 */
import { spawn } from "node:child_process";
import { hookEnv } from "../../../api/index.js";
import { type CommandContext, objectRef } from "../context.js";
import { acknowledge, type PendingRequest, pendingRequests } from "../hook-requests.js";

export interface ObserveOptions {
  command: readonly string[];
  intervalMs: number;
  once: boolean;
  /** Stops the loop (the entry point aborts it on SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

const OUTPUT_LIMIT = 64 * 1024;

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").slice(0, 512);
}

function runScript(
  command: readonly string[],
  request: PendingRequest,
): Promise<{ code: number; out: string; err: string }> {
  const [file, ...args] = command;
  return new Promise((resolve) => {
    const child = spawn(file ?? "true", args, {
      env: { ...process.env, ...hookEnv(request.context) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < OUTPUT_LIMIT) out += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < OUTPUT_LIMIT) err += d.toString("utf8");
    });
    child.on("error", (e) => resolve({ code: 127, out, err: `${err}${e.message}` }));
    child.on("close", (code, sig) => resolve({ code: code ?? (sig !== null ? 128 : 1), out, err }));
  });
}

export async function observeCommand(
  ctx: CommandContext,
  name: string,
  options: ObserveOptions,
): Promise<number> {
  const { api, io } = ctx;
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  let failures = 0;
  io.stderr.write(
    `observing ${objectRef(name)}: running ${options.command.join(" ")} for each external hook\n`,
  );
  const handle = async (request: PendingRequest) => {
    const c = request.context;
    const where = request.pod !== undefined ? ` on ${request.pod.name}` : "";
    io.stdout.write(`${c.hook}${where}: running (id ${c.id}, attempt ${c.attempt})\n`);
    const result = await runScript(options.command, request);
    const ok = result.code === 0;
    if (!ok) failures++;
    const message = ok ? lastLine(result.out) : lastLine(result.err) || `exit code ${result.code}`;
    try {
      await acknowledge(api, request, ok ? "Succeeded" : "Failed", message);
      io.stdout.write(`${c.hook}${where}: ${ok ? "succeeded" : `failed (exit code ${result.code})`}\n`);
    } catch (err) {
      // The pod moved on (409) or is gone: the controller asks again if it still needs the hook.
      started.delete(`${c.id}#${c.attempt}`);
      io.stderr.write(
        `${c.hook}${where}: could not answer: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
  };
  for (;;) {
    const petSet = await api.getPetSet(name);
    for (const request of await pendingRequests(api, petSet)) {
      const key = `${request.context.id}#${request.context.attempt}`;
      if (request.answered || started.has(key)) continue;
      started.add(key);
      const p = handle(request).finally(() => running.delete(p));
      running.add(p);
    }
    if (options.once) {
      await Promise.all(running);
      return failures > 0 ? 1 : 0;
    }
    if (options.signal?.aborted) break;
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        options.signal?.removeEventListener("abort", onAbort);
        resolve();
      }, options.intervalMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
    if (options.signal?.aborted) break;
  }
  await Promise.all(running);
  return 0;
}
