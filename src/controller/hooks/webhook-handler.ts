/**
 * The `webhook` handler: POST a HookReview (hooks.petset.dev/v1) to a babysitter, like an
 * admission webhook: HTTPS with an optional caBundle (http:// only to loopback), a request
 * timeout, no redirects. The answer's `result` is Succeeded, Failed or Retry (after
 * `retryAfterSeconds`). Connection errors and 5xx answers are retried every 5 s until the
 * run's timeout (a babysitter restarting must not fail a hook); other answers are failures.
 * Retries of one run re-send the same `uid` (the hook id), so a babysitter can be idempotent.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { z } from "zod";
import type { HookContext } from "../../api/index.js";
import { type HookHandler, type HookOutcome, sleep, tail } from "./hook-run.js";

export const HOOK_REVIEW_API_VERSION = "hooks.petset.dev/v1";
const REQUEST_TIMEOUT_MS = 30_000;
const TRANSIENT_RETRY_MS = 5_000;
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

function post(url: URL, body: string, ca: string | undefined, signal: AbortSignal): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const options = {
      method: "POST",
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      signal,
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
    req.end(body);
  });
}

export const runWebhook: HookHandler = async (run, _deps, signal): Promise<HookOutcome> => {
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
  for (;;) {
    let answer: HttpAnswer;
    try {
      answer = await post(url, body, ca, signal);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      await sleep(TRANSIENT_RETRY_MS, signal);
      void err;
      continue;
    }
    if (answer.status >= 500) {
      await sleep(TRANSIENT_RETRY_MS, signal);
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
