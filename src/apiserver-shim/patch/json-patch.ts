/** RFC 6902 JSON Patch (`application/json-patch+json`). */
import jsonpatch from "fast-json-patch";
import { ApiError } from "../errors.js";
import { deepClone } from "../types.js";

type Operation = Parameters<typeof jsonpatch.applyPatch>[1][number];

export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw invalidPatch("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  try {
    return jsonpatch.applyPatch(deepClone(doc), patch as Operation[], true, true).newDocument;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0]! : String(e);
    throw invalidPatch(msg);
  }
}

function invalidPatch(msg: string): ApiError {
  return new ApiError(
    422,
    "Invalid",
    `the server rejected our request due to an error in our request: ${msg}`,
  );
}
