/**
 * A request body as the object a verb works on (k8s.io/apiserver's decoding of a create,
 * update or patch body): apiVersion and kind must be the endpoint's or absent, the namespace
 * the request's; the object is a copy, never the caller's.
 */
import { badRequest } from "../errors.js";
import { deepClone, isPlainObject, type KubeObject } from "../types.js";
import { apiVersionOf, type ResourceDefinition } from "./resource.js";

/** Body → object with apiVersion, kind and namespace checked against the request. */
export function decodeBody(def: ResourceDefinition, ns: string | undefined, body: unknown): KubeObject {
  if (!isPlainObject(body)) throw badRequest(`Object '${def.kind}' is missing in '${JSON.stringify(body)}'`);
  const obj = deepClone(body) as KubeObject;
  const av = apiVersionOf(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== av)
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${av})`,
    );
  if (obj.kind !== undefined && obj.kind !== def.kind)
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${def.kind})`,
    );
  obj.apiVersion = av;
  obj.kind = def.kind;
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  if (def.namespaced) {
    if (obj.metadata.namespace && ns && obj.metadata.namespace !== ns)
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    obj.metadata.namespace = ns ?? obj.metadata.namespace;
    if (!obj.metadata.namespace) throw badRequest("the server could not find the requested resource");
  } else delete obj.metadata.namespace;
  return obj;
}
