/**
 * The fencing test's accounting (test/support/fence-accounting.ts): a write a resumed replica
 * sent is excused only by a fence check made before the freeze, one check per write.
 */
import { describe, expect, it } from "vitest";
import { dispatchedWrites, httpMethod, notCheckedBefore } from "../../support/fence-accounting.js";
import type { ReceivedWrite } from "../../support/request-log.js";

const EVENTS = "/api/v1/namespaces/fencing-1rz3kq/events";
const at = (iso: string) => new Date(`2026-12-06T${iso}Z`);
const write = (verb: string, uri: string, when: string): ReceivedWrite => ({
  verb,
  uri,
  userAgent: "petset-controller/0.1.0 (vm-18556)",
  at: at(when),
});
const dispatched = (method: string, uri: string, when: string) =>
  JSON.stringify({
    level: 20,
    request: `${method} ${uri} HTTP/1.1`,
    checkedAt: at(when).getTime(),
    msg: "write dispatched",
  });

const frozenAt = at("17:04:32.750");
/** The replica's log of the run that failed: four Events delivered, a fifth checked at the freeze. */
const log = [
  dispatched("POST", EVENTS, "17:04:32.033"),
  dispatched("POST", EVENTS, "17:04:32.277"),
  dispatched("POST", EVENTS, "17:04:32.683"),
  dispatched("POST", EVENTS, "17:04:32.740"),
  '{"level":20,"msg":"synced"}',
  dispatched("POST", EVENTS, "17:04:32.750"),
].join("\n");

describe("fence accounting", () => {
  it("maps audit verbs and HTTP methods alike", () => {
    expect(
      ["create", "update", "patch", "delete", "deletecollection", "POST", "PATCH"].map(httpMethod),
    ).toEqual(["POST", "PUT", "PATCH", "DELETE", "DELETE", "POST", "PATCH"]);
  });

  it.each([
    ["kube-apiserver's audit log (verbs)", "create"],
    ["the embedded server's log (methods)", "POST"],
  ])(
    "regression (CI, fencing on kube-apiserver): an Event checked in the millisecond of the freeze and sent on resume is excused, in %s",
    (_server, verb) => {
      const earlier = ["17:04:32.034", "17:04:32.277", "17:04:32.683", "17:04:32.740"].map((t) =>
        write(verb, EVENTS, t),
      );
      const late = [write(verb, EVENTS, "17:04:37.430")];
      expect(notCheckedBefore(late, earlier, dispatchedWrites(log), frozenAt)).toEqual([]);
    },
  );

  it("a write checked after the freeze is not excused", () => {
    const late = [write("create", EVENTS, "17:04:37.430")];
    const after = `${log}\n${dispatched("POST", EVENTS, "17:04:37.429")}`;
    const earlier = ["17:04:32.034", "17:04:32.277", "17:04:32.683", "17:04:32.740", "17:04:32.751"].map(
      (t) => write("create", EVENTS, t),
    );
    // Five checks before the freeze, five Events delivered before the resume: nothing left over.
    expect(notCheckedBefore(late, earlier, dispatchedWrites(after), frozenAt)).toEqual(late);
  });

  it("one check excuses one write: a second late write to the same path is reported", () => {
    const earlier = ["17:04:32.034", "17:04:32.277", "17:04:32.683", "17:04:32.740"].map((t) =>
      write("create", EVENTS, t),
    );
    const late = [write("create", EVENTS, "17:04:37.430"), write("create", EVENTS, "17:04:37.500")];
    expect(notCheckedBefore(late, earlier, dispatchedWrites(log), frozenAt)).toEqual([late[1]]);
  });

  it("a check excuses only a write with its method and path", () => {
    const earlier = ["17:04:32.034", "17:04:32.277", "17:04:32.683", "17:04:32.740"].map((t) =>
      write("create", EVENTS, t),
    );
    const late = [write("delete", "/api/v1/namespaces/fencing-1rz3kq/pods/fence-0", "17:04:37.430")];
    expect(notCheckedBefore(late, earlier, dispatchedWrites(log), frozenAt)).toEqual(late);
  });
});
