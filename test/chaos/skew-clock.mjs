/**
 * Clock skew for a controller child process (test tooling, never product code):
 *   node --import ./test/chaos/skew-clock.mjs dist/src/cli/petset.js controller ...
 * with PETSET_TEST_CLOCK_SKEW_MS=<ms> (negative: behind the API server). Wall-clock time
 * (`Date.now()`, `new Date()`) is shifted by that much, as on a machine whose clock is off;
 * monotonic time (`performance.now()`, timers) is not, as on such a machine. What the
 * controller tolerates is in docs/reliability.md, "Network faults and clock skew".
 */
const raw = process.env.PETSET_TEST_CLOCK_SKEW_MS ?? "0";
const skewMs = Number(raw);
if (!Number.isFinite(skewMs)) {
  throw new Error(`PETSET_TEST_CLOCK_SKEW_MS=${raw}: expected a number of milliseconds`);
}

if (skewMs !== 0) {
  const RealDate = globalThis.Date;
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + skewMs);
      else super(...args);
    }

    static now() {
      return RealDate.now() + skewMs;
    }
  }
  globalThis.Date = SkewedDate;
}
