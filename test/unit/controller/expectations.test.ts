import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  type CachedObject,
  type Expectation,
  ExpectationStore,
  expectBefore,
  isObserved,
  NO_RESEND,
  type ResendPolicy,
} from "../../../src/controller/expectations.js";
import { isDefiniteRefusal } from "../../../src/controller/write-answer.js";

const status = (code: number, reason: string, message: string) =>
  new ApiException(
    code,
    message,
    JSON.stringify({ kind: "Status", status: "Failure", code, reason, message }),
    {},
  );

const obj = (uid: string, resourceVersion: string, terminating = false): CachedObject => ({
  uid,
  resourceVersion,
  terminating,
});

describe("isObserved", () => {
  const cases: { name: string; e: Expectation; cached: CachedObject | undefined; observed: boolean }[] = [
    {
      name: "create, not in cache",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: undefined,
      observed: false,
    },
    {
      name: "create, in cache",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "5"),
      observed: true,
    },
    {
      name: "create, a newer incarnation",
      e: { kind: "present", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("b", "9"),
      observed: true,
    },
    {
      name: "delete, still there",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "5"),
      observed: false,
    },
    {
      name: "delete, terminating",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("a", "6", true),
      observed: true,
    },
    {
      name: "delete, gone",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: undefined,
      observed: true,
    },
    {
      name: "delete, replaced",
      e: { kind: "gone", resource: "pods", name: "web-0", uid: "a" },
      cached: obj("b", "7"),
      observed: true,
    },
    {
      name: "patch, cache at the old rv",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("a", "5"),
      observed: false,
    },
    {
      name: "patch, cache moved on",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("a", "8"),
      observed: true,
    },
    {
      name: "patch, object replaced",
      e: { kind: "changed", resource: "pods", name: "web-0", uid: "a", from: "5" },
      cached: obj("b", "5"),
      observed: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isObserved(c.e, () => c.cached)).toBe(c.observed);
    });
  }
});

describe("ExpectationStore", () => {
  it("keeps what the cache has not shown, drops what it has, and expires after the timeout", () => {
    const store = new ExpectationStore(1000);
    const create: Expectation = { kind: "present", resource: "pods", name: "web-0" };
    const patch: Expectation = { kind: "changed", resource: "pods", name: "web-1", uid: "u", from: "3" };
    store.expect("ns/web", create, 0);
    store.expect("ns/web", patch, 500);
    const cache = new Map<string, CachedObject>([["web-1", obj("u", "3")]]);
    const lookup = (_r: string, name: string) => cache.get(name);
    expect(store.check("ns/web", lookup, 100).pending).toEqual([create, patch]);
    cache.set("web-0", obj("x", "1"));
    const after = store.check("ns/web", lookup, 200);
    expect(after.pending).toEqual([patch]);
    expect(after.expiresAt).toBe(1500);
    const expired = store.check("ns/web", lookup, 1500);
    expect(expired.pending).toEqual([]);
    expect(expired.expired).toEqual([patch]);
    expect(store.size).toBe(0);
  });

  it("a create seen by an informer event is met even if the object was deleted before the next sync (issue 24: the model checker's 30 s stall)", () => {
    const store = new ExpectationStore(30_000);
    const create: Expectation = { kind: "present", resource: "pods", name: "web-0" };
    store.expect("ns/web", create, 0);
    // Events of other objects, other resources or other owners meet nothing.
    store.observed("ns/web", "pods", "web-1");
    store.observed("ns/web", "persistentvolumeclaims", "web-0");
    store.observed("ns/other", "pods", "web-0");
    expect(store.check("ns/web", () => undefined, 10).pending).toEqual([create]);
    // The add event came, then the pod was deleted: the cache no longer shows it.
    store.observed("ns/web", "pods", "web-0");
    expect(store.check("ns/web", () => undefined, 20).pending).toEqual([]);
    expect(store.size).toBe(0);
  });

  it("keys are independent", () => {
    const store = new ExpectationStore(1000);
    store.expect("ns/a", { kind: "present", resource: "pods", name: "a-0" }, 0);
    expect(store.check("ns/b", () => undefined, 0).pending).toEqual([]);
    store.forget("ns/a");
    expect(store.check("ns/a", () => undefined, 0).pending).toEqual([]);
  });
});

describe("isDefiniteRefusal (write-answer.ts)", () => {
  const cases: { name: string; err: unknown; definite: boolean }[] = [
    { name: "422 Invalid", err: status(422, "Invalid", "spec.x: Invalid value"), definite: true },
    { name: "409 Conflict", err: status(409, "Conflict", "the object has been modified"), definite: true },
    {
      name: "409 AlreadyExists",
      err: status(409, "AlreadyExists", 'pods "web-0" already exists'),
      definite: true,
    },
    { name: "429 TooManyRequests", err: status(429, "TooManyRequests", "too many requests"), definite: true },
    {
      name: "500 with a Status",
      err: status(500, "InternalError", "admission webhook failed"),
      definite: true,
    },
    {
      name: "504 Timeout",
      err: status(
        504,
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
      ),
      definite: false,
    },
    {
      name: "500 ServerTimeout",
      err: status(500, "ServerTimeout", "the server cannot complete the requested operation at this time"),
      definite: false,
    },
    {
      name: "500 etcd timeout",
      err: status(500, "InternalError", "etcdserver: request timed out"),
      definite: false,
    },
    {
      name: "502 from a proxy (no Status body)",
      err: new ApiException(502, "Bad Gateway", "<html>bad gateway</html>", {}),
      definite: false,
    },
    {
      name: "a reset",
      err: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      definite: false,
    },
    { name: "a timeout", err: Object.assign(new Error("aborted"), { name: "AbortError" }), definite: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isDefiniteRefusal(c.err)).toBe(c.definite);
    });
  }
});

describe("expectBefore", () => {
  const e: Expectation = { kind: "present", resource: "pods", name: "web-0" };
  const pendingAfter = async (err: unknown) => {
    const store = new ExpectationStore(1000);
    const record = (x: Expectation) => store.expect("ns/web", x, 0);
    await expectBefore(record, e, () => Promise.reject(err)).catch(() => undefined);
    return store.check("ns/web", () => undefined, 1).pending;
  };

  it("records before the write, withdraws on a refusal, keeps on a lost answer or AlreadyExists", async () => {
    const store = new ExpectationStore(1000);
    let seenDuringWrite: Expectation[] = [];
    await expectBefore(
      (x: Expectation) => store.expect("ns/web", x, 0),
      e,
      async () => {
        seenDuringWrite = store.check("ns/web", () => undefined, 0).pending;
      },
    );
    expect(seenDuringWrite).toEqual([e]);
    expect(await pendingAfter(status(422, "Invalid", "no"))).toEqual([]);
    expect(await pendingAfter(status(409, "AlreadyExists", "exists"))).toEqual([e]);
    expect(await pendingAfter(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" }))).toEqual([e]);
  });

  it("a delete's NotFound keeps its gone expectation (the object is gone: the cache will show it)", async () => {
    const store = new ExpectationStore(1000);
    const gone: Expectation = { kind: "gone", resource: "pods", name: "web-0", uid: "u" };
    await expectBefore(
      (x: Expectation) => store.expect("ns/web", x, 0),
      gone,
      () => Promise.reject(status(404, "NotFound", "not found")),
    ).catch(() => undefined);
    expect(
      store.check("ns/web", () => ({ uid: "u", resourceVersion: "1", terminating: false }), 1).pending,
    ).toEqual([gone]);
  });
});

describe("resending a write whose answer was lost", () => {
  const e: Expectation = { kind: "present", resource: "pods", name: "web-0" };
  const fast: ResendPolicy = { delaysMs: [1, 1, 1], budgetMs: 1_000 };
  const reset = () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  const run = async (answers: unknown[], policy = fast) => {
    const store = new ExpectationStore(1000);
    let sends = 0;
    const result = await expectBefore(
      (x: Expectation) => store.expect("ns/web", x, 0),
      e,
      async () => {
        const answer = answers[sends++];
        if (answer instanceof Error) throw answer;
        return answer;
      },
      policy,
    ).then(
      (v) => ({ ok: v }),
      (err: unknown) => ({ err }),
    );
    return { result, sends, pending: store.check("ns/web", () => undefined, 1).pending };
  };

  it("a lost answer is resent until one comes back; a success after it keeps the expectation", async () => {
    const r = await run([reset(), reset(), "created"]);
    expect(r.result).toEqual({ ok: "created" });
    expect(r.sends).toBe(3);
    expect(r.pending).toEqual([e]);
  });

  it("AlreadyExists after a lost answer: it landed, the expectation stays", async () => {
    const r = await run([reset(), status(409, "AlreadyExists", "exists")]);
    expect(r.sends).toBe(2);
    expect(r.pending).toEqual([e]);
  });

  it("a refusal after a lost answer does not withdraw it (the first send may have landed)", async () => {
    const r = await run([reset(), status(403, "Forbidden", "exceeded quota")]);
    expect(r.sends).toBe(2);
    expect(r.pending).toEqual([e]);
  });

  it("a refusal of the first send is not resent and withdraws the expectation", async () => {
    const r = await run([status(422, "Invalid", "no"), "created"]);
    expect(r.sends).toBe(1);
    expect(r.pending).toEqual([]);
  });

  it("stops after the last delay, and within the budget; NO_RESEND sends once", async () => {
    expect((await run([reset(), reset(), reset(), reset(), "never"])).sends).toBe(4);
    expect((await run([reset(), "created"], { delaysMs: [50], budgetMs: 10 })).sends).toBe(1);
    expect((await run([reset(), "created"], NO_RESEND)).sends).toBe(1);
  });
});
