/** Whose handshake request an annotation is (hooks/external-handler.ts isOwnRequest, pure). */
import { describe, expect, it } from "vitest";
import { hookRequestValue, isOwnRequest } from "../../../../src/controller/hooks/external-handler.js";

const ctx = (id: string, attempt: number) => ({
  id,
  hook: "preUpdate" as const,
  petSet: "web",
  namespace: "default",
  attempt,
});

describe("isOwnRequest", () => {
  it.each([
    ["its own request", hookRequestValue(ctx("a", 2)), true],
    ["the same id at another attempt (a retry's): not its own", hookRequestValue(ctx("a", 3)), false],
    ["another id (a newer version's hook)", hookRequestValue(ctx("b", 2)), false],
    ["a request without an attempt, same id", JSON.stringify({ id: "a" }), true],
    ["no request", undefined, false],
    ["not JSON", "a", false],
  ])("%s", (_name, raw, want) => {
    expect(isOwnRequest(raw, ctx("a", 2))).toBe(want);
  });
});
