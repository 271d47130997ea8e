/**
 * Differences between the embedded API server and kube-apiserver that the suite accepts.
 * Policy (docs/conformance.md): an entry names the scenario(s), optionally the step, and the
 * path of the difference, with a short, honest reason; a difference that is a bug and small
 * to fix gets fixed instead. Entries that no longer match anything fail the suite, so the
 * list only ever says what is still true.
 */
import type { AllowListEntry } from "./types.js";

export const ALLOW_LIST: readonly AllowListEntry[] = [
  {
    scenario: "job/template-immutable",
    step: "change-image",
    path: "body.details.causes",
    reason:
      "kube prints the refused template with Go's %#v of the internal core.PodTemplateSpec (pointer addresses included); the shim prints it as JSON",
  },
  {
    scenario: "job/template-immutable",
    step: "change-image",
    path: "body.message",
    reason: "the same Go %#v template dump in the message (see body.details.causes)",
  },
  // not implemented: admission plugins
  {
    scenario: "pod/service-account-token-volume",
    path: "body.spec.volumes",
    reason: "the ServiceAccount admission plugin's projected token volume is not emulated",
  },
  {
    scenario: "pod/service-account-token-volume",
    path: "body.spec.containers[0].volumeMounts",
    reason: "the mount of that token volume (see body.spec.volumes)",
  },
  {
    scenario: ["pvc/create", "pvc/spec-immutable"],
    path: "body.metadata.finalizers",
    reason: "the PVC protection admission plugin's finalizer is not emulated",
  },
  {
    scenario: "petset/scale-subresource",
    step: "get",
    path: "body.metadata.managedFields[1].time",
    reason:
      "kube's scale subresource handler writes the entry of the manager that wrote /scale without a time; the shim stamps one",
  },
  // messages whose text comes from Go internals
  {
    scenario: ["pod/spec-immutable", "pvc/spec-immutable"],
    path: "body.message",
    reason: "kube appends a Go struct diff (cmp.Diff of the internal spec) to the immutability error",
  },
  {
    scenario: ["pod/spec-immutable", "pvc/spec-immutable"],
    path: "body.details.causes",
    reason: "same Go struct diff in the cause",
  },
  // issue 26: the same Go struct diff where a claim update changes more than a Bound claim may
  ...["grow-pending", "change-class", "unset-attributes-class"].flatMap((step) => [
    {
      scenario: "pvc/resize-admission",
      step,
      path: "body.message",
      reason: "kube appends a Go struct diff (cmp.Diff of the internal claim spec) to the immutability error",
    },
    {
      scenario: "pvc/resize-admission",
      step,
      path: "body.details.causes",
      reason: "same Go struct diff in the cause",
    },
  ]),
  {
    scenario: "configmap/malformed-json",
    path: "body.message",
    reason: "kube quotes Go's encoding/json error text",
  },
  {
    scenario: "apply/wrong-kind",
    path: "body.message",
    reason: "different wording of the kind mismatch",
  },
  {
    scenario: ["list/invalid-label-selector", "list/field-selectors", "list/limit-continue"],
    path: "body.message",
    reason: "parser error texts (label selector lexer, field selector, continue token) differ",
  },
];
