/**
 * Writes whose answer is read for its metadata only (a created pod's uid, a patched object's
 * resourceVersion, or nothing at all) ask the API server for that alone: `Accept:
 * application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`, with plain JSON as the
 * fallback. kube-apiserver transforms the answer of a create, update, patch or delete as it
 * does a read's (k8s.io/apiserver handlers: transformResponseObject), and so does the
 * embedded server (apiserver-shim/http/respond.ts `negotiate`).
 *
 * Why (issue 29): every answer went through client-node's ObjectSerializer, which parses the
 * body and walks the whole typed model of the object (a 6-KB pod, a PetSet with its template
 * and managedFields): 7 % of the controller's CPU in a rollout, more than its planning. A
 * metadata answer is a fraction of the bytes and of the walk. An error answer is a Status
 * either way, so errors read the same.
 *
 * The answer's type in client-node stays the resource's (V1Pod, ...), but only `metadata` is
 * set: a caller that reads more must not use these options.
 */
import { type ConfigurationOptions, setHeaderOptions } from "@kubernetes/client-node";

export const METADATA_ANSWER_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";

/** Per-call options asking for a metadata answer; `opt`: options to keep (a patch's Content-Type). */
export function metadataAnswer(opt?: ConfigurationOptions): ConfigurationOptions {
  return setHeaderOptions("Accept", METADATA_ANSWER_ACCEPT, opt);
}

/** The same, for a patch of the given Content-Type. */
export function metadataAnswerPatch(contentType: string): ConfigurationOptions {
  return metadataAnswer(setHeaderOptions("Content-Type", contentType));
}
