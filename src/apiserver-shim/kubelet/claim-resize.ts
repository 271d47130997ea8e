/**
 * The claim resize state machine of the simulated CSI external-resizer and kubelet, as a pure
 * function of the claim: given a claim, what the next write is (or nothing). The state lives
 * in the claim's status (`allocatedResources`, `allocatedResourceStatuses[storage]`,
 * `conditions`), never in the process, so a restarted resizer resumes where the claim is.
 *
 * The order is kube 1.33's with RecoverVolumeExpansionFailure (what the external-resizer and
 * the kubelet write):
 *   1. request above status.capacity: allocatedResources = request,
 *      allocatedResourceStatuses[storage] = ControllerResizeInProgress, condition Resizing;
 *   2. controller expansion done: the PV's spec.capacity = allocatedResources, then
 *      NodeResizePending with condition FileSystemResizePending;
 *   3. node expansion done: status.capacity = allocatedResources; the resize status and the
 *      resize conditions are cleared (allocatedResources stays, as in kube).
 * Failures: ControllerResizeInfeasible with condition ControllerResizeError, or
 * NodeResizeInfeasible with NodeResizeError. A failed resize is tried again when the request
 * changes (kube's recovery: lower it, still above status.capacity) or when the annotation that
 * made it fail is removed.
 *
 * Test hooks (docs/volumes.md), annotations on the claim, the same on both test backends:
 *   resize.petset.dev/fail: controller | node   the resize fails at that stage
 *   resize.petset.dev/hang: controller | node   the resize stops at that stage (no progress)
 * Simplification: node expansion does not wait for a pod to mount the claim.
 */
import { compareQuantities } from "../builtin/claim-update-validation.js";

export const ResizeFailAnnotation = "resize.petset.dev/fail";
export const ResizeHangAnnotation = "resize.petset.dev/hang";
/** The resizer's name in messages (a CSI driver's name in kube). */
export const ResizerName = "petset.dev/simulated-resizer";

type Obj = Record<string, unknown>;

export interface ResizeCondition {
  type: string;
  status: "True";
  lastProbeTime: null;
  lastTransitionTime: string;
  message?: string;
}

/** A status merge patch (null removes a key), and for step 2 the PV capacity written first. */
export interface ResizeStep {
  kind:
    | "controller-start"
    | "controller-finish"
    | "controller-fail"
    | "node-finish"
    | "node-fail"
    | "node-retry";
  volume?: { name: string; capacity: string };
  status: Obj;
}

/** Condition types the resize owns; other conditions of the claim are kept. */
const RESIZE_CONDITIONS = new Set([
  "Resizing",
  "FileSystemResizePending",
  "ControllerResizeError",
  "NodeResizeError",
]);

const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The next resize write for this claim at time `now`, or undefined when it has none to make. */
export function nextResizeStep(claim: unknown, now: Date): ResizeStep | undefined {
  const c = obj(claim);
  const meta = obj(c.metadata);
  if (meta.deletionTimestamp) return undefined;
  const spec = obj(c.spec);
  const status = obj(c.status);
  if (status.phase !== "Bound") return undefined;
  const requested = obj(obj(spec.resources).requests).storage;
  const capacity = obj(status.capacity).storage;
  const allocated = obj(status.allocatedResources).storage;
  const state = str(obj(status.allocatedResourceStatuses).storage);
  const annotations = obj(meta.annotations);
  const failAt = str(annotations[ResizeFailAnnotation]);
  const hangAt = str(annotations[ResizeHangAnnotation]);
  const volumeName = str(spec.volumeName) ?? "";
  const at = now.toISOString();
  const conditions = (...added: ResizeCondition[]) => [
    ...(Array.isArray(status.conditions) ? status.conditions : []).filter(
      (k) => !RESIZE_CONDITIONS.has(String(obj(k).type)),
    ),
    ...added,
  ];
  const condition = (type: string, message?: string): ResizeCondition => ({
    type,
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: at,
    ...(message ? { message } : {}),
  });
  const requestedChanged = requested !== undefined && compareQuantities(requested, allocated) !== 0;
  const wantsGrowth = requested !== undefined && compareQuantities(requested, capacity) > 0;
  const start = (): ResizeStep => ({
    kind: "controller-start",
    status: {
      allocatedResources: { storage: requested },
      allocatedResourceStatuses: { storage: "ControllerResizeInProgress" },
      conditions: conditions(condition("Resizing")),
    },
  });

  switch (state) {
    case undefined:
      return wantsGrowth ? start() : undefined;
    case "ControllerResizeInProgress":
      if (failAt === "controller")
        return {
          kind: "controller-fail",
          status: {
            allocatedResourceStatuses: { storage: "ControllerResizeInfeasible" },
            conditions: conditions(
              condition(
                "ControllerResizeError",
                `resize volume "${volumeName}" by resizer "${ResizerName}" failed: simulated failure (annotation ${ResizeFailAnnotation}=controller)`,
              ),
            ),
          },
        };
      if (hangAt === "controller") return undefined;
      return {
        kind: "controller-finish",
        ...(volumeName ? { volume: { name: volumeName, capacity: String(allocated) } } : {}),
        status: {
          allocatedResourceStatuses: { storage: "NodeResizePending" },
          conditions: conditions(
            condition(
              "FileSystemResizePending",
              "Waiting for user to (re-)start a pod to finish file system resize of volume on node.",
            ),
          ),
        },
      };
    case "NodeResizePending":
    case "NodeResizeInProgress":
      if (failAt === "node")
        return {
          kind: "node-fail",
          status: {
            allocatedResourceStatuses: { storage: "NodeResizeInfeasible" },
            conditions: conditions(
              condition(
                "NodeResizeError",
                `MountVolume.NodeExpandVolume failed for volume "${volumeName}": simulated failure (annotation ${ResizeFailAnnotation}=node)`,
              ),
            ),
          },
        };
      if (hangAt === "node") return undefined;
      return {
        kind: "node-finish",
        status: {
          capacity: { ...obj(status.capacity), storage: allocated },
          allocatedResourceStatuses: null,
          conditions: conditions(),
        },
      };
    case "ControllerResizeInfeasible":
      return (requestedChanged || failAt !== "controller") && wantsGrowth ? start() : undefined;
    case "NodeResizeInfeasible":
      if (requestedChanged && wantsGrowth) return start();
      if (failAt === "node") return undefined;
      return {
        kind: "node-retry",
        status: {
          allocatedResourceStatuses: { storage: "NodeResizePending" },
          conditions: conditions(
            condition(
              "FileSystemResizePending",
              "Waiting for user to (re-)start a pod to finish file system resize of volume on node.",
            ),
          ),
        },
      };
    default:
      return undefined;
  }
}
