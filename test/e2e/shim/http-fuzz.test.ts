/**
 * A fixed-seed slice of the HTTP fuzz of the embedded server (test/fuzz/http-fuzz.ts; the full
 * run is `make fuzz`): malformed bodies, bad parameters, slow, abandoned and many concurrent
 * clients. Never a 5xx, never a changed stored object, and the server still answers.
 */
import { expect, it } from "vitest";
import { runHttpFuzz } from "../../fuzz/http-fuzz.js";

it("HTTP fuzz slice: 150 malformed requests, 300 concurrent watches, slow and abandoned clients", async () => {
  const s = await runHttpFuzz({ seed: 20261201, runs: 150, watches: 300 });
  expect(s.fiveXxSamples).toEqual([]);
  expect(s["5xx"]).toBe(0);
  expect(s.changedObjects).toEqual([]);
  expect(s.oversized413).toBe(3);
  expect(s.serverAnsweredAfter).toBe(true);
}, 90_000);
