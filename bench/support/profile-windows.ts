/**
 * The measured windows of a benchmark, for reading a controller CPU profile (`--controller-cpu-prof
 * DIR`) for them alone: a profile covers the controller's whole life (start-up, creating and
 * deleting the sets between rounds), and only the windows are what the comparison measures.
 *
 * `DIR/windows.txt`, one line per window: `<startUs> <endUs> <label>`, in microseconds of the
 * system's monotonic clock, the clock V8 stamps profile samples with (`startTime`, `timeDeltas`),
 * so a sample is in a window when its time lies between the two. Written here, read here
 * (parseWindows, for hack/cpu-profile.ts): the format has one owner.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/** Now, in microseconds of the monotonic clock (CLOCK_MONOTONIC, as a V8 profile's timestamps). */
export function monotonicMicros(): bigint {
  return process.hrtime.bigint() / 1000n;
}

/** Appends the window from `startUs` to now, named `label`, to `dir`/windows.txt. */
export function recordProfileWindow(dir: string, label: string, startUs: bigint): void {
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, "windows.txt"), `${startUs} ${monotonicMicros()} ${label}\n`);
}

/** `[startUs, endUs]` on the profile's clock. */
export type Window = readonly [number, number];

/**
 * `windows.txt` lines (`<startUs> <endUs> <label>`): all, or those whose label is `match` or
 * begins with its words (`petset` takes both scenarios; `petset maxUnavailable 1` not the 10).
 */
export function parseWindows(text: string, match = ""): Window[] {
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => {
      const label = f.slice(2).join(" ");
      return f.length >= 2 && (match === "" || label === match || label.startsWith(`${match} `));
    })
    .map((f) => [Number(f[0]), Number(f[1])] as const);
}
