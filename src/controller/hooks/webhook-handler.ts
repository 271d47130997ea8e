/**
 * The `webhook` handler: POST a HookReview (hooks.petset.dev/v1) to a babysitter, like an
 * admission webhook: HTTPS with an optional caBundle (http:// only to loopback), a request
 * timeout, no redirects. The answer's `result` is Succeeded, Failed or Retry (after
 * `retryAfterSeconds`). Transient failures are retried with backoff (200 ms doubling to 5 s)
 * until the run's timeout, never the hook's failure: connection errors, no answer in time,
 * 429 and 5xx answers (a babysitter restarting or busy), and the Lease fence refusing (this
 * replica not sure it leads yet); other answers are failures. Retries of one run re-send the same `uid` (the hook
 * id), so a babysitter can be idempotent: a request whose answer was lost may have been acted
 * on.
 *
 * Fenced like the controller's API writes (SPEC rule 9): the fence is checked before each
 * POST and again, synchronously, as the request's bytes go out on its connection (a fresh
 * one per request); a replica that is not sure it leads sends nothing.
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { z } from "zod";
import type { HookContext } from "../../api/index.js";
import { sleep } from "../../util/sleep.js";
import { fenceSocketWrites } from "../fenced-connection.js";
import { fenceCheck, type HookHandler, type HookOutcome, tail } from "./hook-run.js";
import { backoffMs, isTransientStatus } from "./transient.js";

export const HOOK_REVIEW_API_VERSION = "hooks.petset.dev/v1";
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export const HookReviewResponseSchema = z.object({
  response: z.object({
    uid: z.string().optional(),
    result: z.enum(["Succeeded", "Failed", "Retry"]),
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    message: z.string().optional(),
  }),
});

export function hookReview(ctx: HookContext): Record<string, unknown> {
  return {
    apiVersion: HOOK_REVIEW_API_VERSION,
    kind: "HookReview",
    request: { uid: ctx.id, ...ctx },
  };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host.startsWith("127.") || host === "[::1]" || host === "::1";
}

interface HttpAnswer {
  status: number;
  body: string;
}

/** A one-request agent whose connection runs `check` before every write to it. */
function fencedAgent(tls: boolean, check: () => void): HttpAgent {
  const Base = tls ? HttpsAgent : HttpAgent;
  const agent = new Base({ keepAlive: false, maxSockets: 1 });
  const create = agent.createConnection.bind(agent) as (...args: unknown[]) => Socket;
  (agent as unknown as { createConnection: (...args: unknown[]) => Socket }).createConnection = (
    ...args: unknown[]
  ) => {
    const socket = create(...args);
    fenceSocketWrites(socket, check);
    return socket;
  };
  return agent;
}

function post(
  url: URL,
  body: string,
  ca: string | undefined,
  signal: AbortSignal,
  check: () => void,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    check();
    const agent = fencedAgent(url.protocol === "https:", check);
    const options = {
      method: "POST",
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      signal,
      agent,
      timeout: REQUEST_TIMEOUT_MS,
      ...(ca !== undefined ? { ca } : {}),
    };
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, options, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (data.length < MAX_RESPONSE_BYTES) data += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000}s`)));
    req.on("error", reject);
    req.on("close", () => agent.destroy());
    req.end(body);
  });
}

export const runWebhook: HookHandler = async (run, deps, signal): Promise<HookOutcome> => {
  const check = fenceCheck(deps);
  const spec = run.spec.webhook;
  if (spec === undefined) return { ok: false, message: "no webhook handler" };
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    return { ok: false, message: `invalid webhook url ${JSON.stringify(spec.url)}` };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    return { ok: false, message: "webhook url must be https://, or http:// to a loopback address" };
  }
  const ca = spec.caBundle !== undefined ? Buffer.from(spec.caBundle, "base64").toString("utf8") : undefined;
  const body = JSON.stringify(hookReview(run.context));
  for (let n = 0; ; n++) {
    let answer: HttpAnswer;
    try {
      answer = await post(url, body, ca, signal, check);
    } catch (err) {
      // No answer (refused, reset, timed out) or not sent (the fence): not the hook's failure.
      if (signal.aborted) throw signal.reason;
      deps.logger.debug({ hook: run.record.id, err: String(err) }, "webhook not answered; retrying");
      await sleep(backoffMs(n), signal);
      continue;
    }
    if (isTransientStatus(answer.status)) {
      await sleep(backoffMs(n), signal);
      continue;
    }
    if (answer.status < 200 || answer.status >= 300) {
      return { ok: false, message: `webhook answered HTTP ${answer.status}: ${tail(answer.body, 256)}` };
    }
    let parsed: z.infer<typeof HookReviewResponseSchema>;
    try {
      parsed = HookReviewResponseSchema.parse(JSON.parse(answer.body));
    } catch (err) {
      return {
        ok: false,
        message: `webhook answer is not a HookReview response: ${err instanceof Error ? tail(err.message, 200) : ""}`,
      };
    }
    const r = parsed.response;
    if (r.result === "Retry") {
      await sleep((r.retryAfterSeconds ?? 5) * 1000, signal);
      continue;
    }
    return { ok: r.result === "Succeeded", message: r.message ?? `webhook: ${r.result}` };
  }
};
