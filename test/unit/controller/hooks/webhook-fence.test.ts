/**
 * The webhook handler and the Lease fence (issue 24 item 5), against a babysitter on loopback
 * (a real HTTP server): nothing is sent while this replica is not sure it leads, whether the
 * fence refuses before the request or while its connection is being made; once the fence
 * holds again the hook runs, and the refusals were not its failure.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { HandlerDeps, HookRun } from "../../../../src/controller/hooks/hook-run.js";
import { runWebhook } from "../../../../src/controller/hooks/webhook-handler.js";
import type { ControllerCaches } from "../../../../src/controller/informers.js";
import { type LeaseGuard, LeaseLostError } from "../../../../src/controller/lease-guard.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A babysitter that answers Succeeded and counts what it was sent. */
async function babysitter(): Promise<{ url: string; reviews: unknown[] }> {
  const reviews: unknown[] = [];
  const listening = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      reviews.push(JSON.parse(body));
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ response: { result: "Succeeded", message: "done" } }));
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}/hook`, reviews };
}

function webhookRun(url: string): HookRun {
  const context = {
    id: "postUpdate.web.v2.0.abcd1234",
    hook: "postUpdate" as const,
    petSet: "web",
    namespace: "default",
    attempt: 1,
  };
  return {
    record: {
      id: context.id,
      hook: "postUpdate",
      handler: "webhook",
      phase: "Running",
      attempts: 1,
      failures: 0,
      startedAt: "",
    },
    spec: { webhook: { url }, timeoutSeconds: 60 },
    context,
  } as unknown as HookRun;
}

/** A fence refusing from its `from`-th check on until `hold()`; counts its checks. */
function fence(from: number) {
  let checks = 0;
  let holds = false;
  const guard: LeaseGuard = {
    check() {
      checks++;
      if (!holds && checks >= from) throw new LeaseLostError("not sure the Lease is held");
    },
    signal: new AbortController().signal,
    remainingMs: () => (holds ? 10_000 : 0),
  };
  return { guard, checks: () => checks, hold: () => (holds = true) };
}

const deps = (guard: LeaseGuard): HandlerDeps => ({
  kubeConfig: undefined as unknown as HandlerDeps["kubeConfig"],
  caches: {} as ControllerCaches,
  clock: { now: () => Date.now() },
  logger: pino({ level: "silent" }),
  fence: guard,
});

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`never: ${what}`);
}

describe("the webhook handler and the Lease fence", () => {
  it.each([
    ["before the request", 1],
    ["while its connection is made (the check at the socket's first write)", 2],
  ])(
    "issue 24 item 5: nothing is sent while the fence refuses %s; the hook runs once it holds",
    async (_when, from) => {
      const sitter = await babysitter();
      const f = fence(from);
      const outcome = runWebhook(webhookRun(sitter.url), deps(f.guard), new AbortController().signal);
      await until("three refused attempts", () => f.checks() >= from + 3);
      expect(sitter.reviews).toEqual([]);
      f.hold();
      await expect(outcome).resolves.toEqual({ ok: true, message: "done" });
      expect(sitter.reviews).toHaveLength(1);
    },
  );
});
