import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { hostOf, RequestGuard } from "../../../../src/apiserver-shim/http/request-guard.js";

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const statusOf = (fn: () => unknown): number | "ok" => {
  try {
    fn();
    return "ok";
  } catch (e) {
    return (e as { code: number }).code;
  }
};

describe("hostOf", () => {
  it.each([
    ["127.0.0.1:6443", "127.0.0.1"],
    ["LOCALHOST", "localhost"],
    ["[::1]:443", "::1"],
    ["::1", "::1"],
    ["evil.example:80", "evil.example"],
    ["", ""],
  ])("%s -> %s", (header, want) => expect(hostOf(header)).toBe(want));
});

describe("RequestGuard", () => {
  const guard = new RequestGuard(["owner", "reader"], ["192.0.2.7"]);

  it("lets loopback and listen-address Hosts through, refuses others with 403", () => {
    for (const host of ["127.0.0.1:1", "localhost:1", "[::1]:1", "127.9.9.9", "192.0.2.7:6443"])
      expect(statusOf(() => guard.checkOrigin(req({ host })))).toBe("ok");
    for (const host of ["evil.example", "127.0.0.1.evil.example", "192.0.2.8", "", "localhost.evil"])
      expect(statusOf(() => guard.checkOrigin(req({ host })))).toBe(403);
  });

  it("refuses any Origin and Sec-Fetch-Site with 403, allows Sec-Fetch-Mode (Node's fetch)", () => {
    const host = "127.0.0.1";
    expect(statusOf(() => guard.checkOrigin(req({ host, origin: "null" })))).toBe(403);
    expect(statusOf(() => guard.checkOrigin(req({ host, origin: "http://127.0.0.1" })))).toBe(403);
    expect(statusOf(() => guard.checkOrigin(req({ host, "sec-fetch-site": "none" })))).toBe(403);
    expect(statusOf(() => guard.checkOrigin(req({ host, "sec-fetch-mode": "cors" })))).toBe("ok");
  });

  it("tells the owner from readers and refuses unknown tokens with 401", () => {
    expect(guard.authenticate(req({ authorization: "Bearer owner" }))).toBe("owner");
    expect(guard.authenticate(req({ authorization: "bearer reader" }))).toBe("reader");
    for (const authorization of ["", "Bearer", "Bearer own", "Bearer owner extra", "Basic b3duZXI="])
      expect(statusOf(() => guard.authenticate(req({ authorization })))).toBe(401);
  });

  it("lets readers only read", () => {
    expect(statusOf(() => guard.authorize("reader", "GET", "/api/v1/pods"))).toBe("ok");
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "CONNECT"])
      expect(statusOf(() => guard.authorize("reader", method, "x"))).toBe(403);
    expect(statusOf(() => guard.authorize("owner", "CONNECT", "x"))).toBe("ok");
  });

  it("needs a token", () => {
    expect(() => new RequestGuard([], [])).toThrow(/at least one bearer token/);
  });
});
