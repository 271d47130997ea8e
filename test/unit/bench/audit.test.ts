/**
 * The rollout comparison's reading of kube-apiserver's audit log (bench/support/audit.ts):
 * writes by kind, and the simulated kubelet's own time per pod.
 */
import { describe, expect, it } from "vitest";
import { AUDIT_USERS, type AuditWrite, countByKind, kubeletSeconds } from "../../../bench/support/audit.js";

const w = (user: string, verb: string, resource: string, name: string, at: number): AuditWrite => ({
  user,
  verb,
  resource,
  name,
  at,
  code: 200,
});
const ctl = AUDIT_USERS.statefulset;
const kwok = AUDIT_USERS.kwok;

describe("audit log reading", () => {
  it("counts writes by verb and resource", () => {
    expect(
      countByKind([
        w(ctl, "delete", "pods", "a", 0),
        w(ctl, "delete", "pods", "b", 1),
        w(ctl, "update", "statefulsets/status", "s", 2),
      ]),
    ).toEqual({ "delete pods": 2, "update statefulsets/status": 1 });
  });

  it("kubelet time: controller delete to kwok's final delete, plus create to kwok's first status write", () => {
    const log = [
      w(ctl, "delete", "pods", "web-1", 1_000),
      w(kwok, "patch", "pods/status", "web-1", 1_300), // containers terminated: not the end yet
      w(kwok, "delete", "pods", "web-1", 1_500),
      w(ctl, "create", "pods", "web-1", 1_600),
      w("system:kube-scheduler", "create", "pods/binding", "web-1", 1_650),
      w(kwok, "patch", "pods/status", "web-1", 1_700),
      w(kwok, "patch", "pods/status", "web-0", 1_800), // nothing pending for web-0
    ];
    expect(kubeletSeconds(log, ctl)).toBeCloseTo(0.6, 5);
    expect(kubeletSeconds(log, AUDIT_USERS.petset)).toBe(0);
  });
});
