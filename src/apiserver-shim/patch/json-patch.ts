/** RFC 6902 JSON Patch (`application/json-patch+json`). */
import jsonpatch from "fast-json-patch";
import { ApiError, badRequest } from "../errors.js";
import { deepClone } from "../types.js";

type Operation = Parameters<typeof jsonpatch.applyPatch>[1][number];

export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw badRequest(
      "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
    );
  try {
    return jsonpatch.applyPatch(deepClone(doc), patch as Operation[], true, true).newDocument;
  } catch (e) {
    throw invalidPatch(e);
  }
}

/** kube answers a patch that does not apply with this bare message and empty details. */
function invalidPatch(cause: unknown): ApiError {
  return new ApiError(
    422,
    "Invalid",
    "the server rejected our request due to an error in our request",
    {},
    cause,
  );
}
