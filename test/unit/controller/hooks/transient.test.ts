/** Which failures of a hook's requests are retried rather than counted (hooks/transient.ts). */
import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { backoffMs, isTransient, retryTransient } from "../../../../src/controller/hooks/transient.js";
import { LeaseLostError } from "../../../../src/controller/lease-guard.js";

const api = (code: number) => new ApiException(code, "HTTP", "{}", {});
const system = (code: string) => Object.assign(new Error(`request failed, reason: ${code}`), { code });
const named = (name: string) => Object.assign(new Error(name), { name });

describe("isTransient", () => {
  it.each([
    ["429 TooManyRequests", api(429), true],
    ["500", api(500), true],
    ["503 ServiceUnavailable", api(503), true],
    ["504", api(504), true],
    ["501 NotImplemented", api(501), false],
    ["400", api(400), false],
    ["403", api(403), false],
    ["404", api(404), false],
    ["409", api(409), false],
    ["422", api(422), false],
    ["a connection reset", system("ECONNRESET"), true],
    ["a connection refused", system("ECONNREFUSED"), true],
    ["node-fetch's FetchError (no answer)", named("FetchError"), true],
    ["a request aborted by its deadline", named("AbortError"), true],
    ["the fence refusing", new LeaseLostError("not sure the Lease is held"), true],
    ["the fence refusing, wrapped", new Error("write failed", { cause: new LeaseLostError("x") }), true],
    ["a programming error", new TypeError("x is undefined"), false],
  ])("%s: %s", (_name, err, want) => {
    expect(isTransient(err)).toBe(want);
  });
});

describe("retryTransient", () => {
  it("retries transient errors, returns the first answer, rethrows a definite error", async () => {
    const signal = new AbortController().signal;
    let calls = 0;
    const got = await retryTransient(async () => {
      calls++;
      if (calls < 3) throw api(503);
      return "ok";
    }, signal);
    expect([got, calls]).toEqual(["ok", 3]);
    await expect(
      retryTransient(async () => {
        throw api(403);
      }, signal),
    ).rejects.toMatchObject({ code: 403 });
  });

  it("stops with the signal's reason", async () => {
    const stop = new AbortController();
    const p = retryTransient(async () => {
      stop.abort(new Error("hook run cancelled"));
      throw api(503);
    }, stop.signal);
    await expect(p).rejects.toThrow("hook run cancelled");
  });

  it("backs off from 200 ms to at most 5 s", () => {
    expect([0, 1, 2, 5, 20].map(backoffMs)).toEqual([200, 400, 800, 5000, 5000]);
  });
});
