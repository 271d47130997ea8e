import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../../../src/controller/hooks/pod-exec.js";

describe("exitCodeOf", () => {
  it.each([
    [{ status: "Success" }, 0],
    [
      {
        status: "Failure",
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: "3" }] },
      },
      3,
    ],
    [{ status: "Failure", reason: "NonZeroExitCode" }, 1],
    // kwok: a non-zero exit is an InternalError naming Go's "exit status N".
    [
      {
        status: "Failure",
        reason: "InternalError",
        message: "error executing command in container: cmd wait: sh -c exit 3: exit status 3",
      },
      3,
    ],
    [
      {
        status: "Failure",
        reason: "InternalError",
        message: 'exec: "nope": executable file not found in $PATH',
      },
      undefined,
    ],
  ])("%j -> %s", (status, want) => {
    expect(exitCodeOf(status)).toBe(want);
  });
});
