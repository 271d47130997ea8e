/**
 * An object's two forms: as stored (the storage version, Go-encoded for built-ins) and as
 * presented at a served version (the "None" conversion, or a resource's own conversion such
 * as events.k8s.io Events over core Events).
 */
import { deepClone, type KubeObject } from "../types.js";
import { goEncode } from "./go-encoding.js";
import { apiVersionOf, type ResourceDefinition } from "./resource.js";

export function storageApiVersion(def: ResourceDefinition): string {
  return def.group ? `${def.group}/${def.storageVersion}` : def.storageVersion;
}

/** A copy of a stored object at the definition's version. */
export function present(def: ResourceDefinition, o: KubeObject): KubeObject {
  if (!def.convert) return { ...deepClone(o), apiVersion: apiVersionOf(def), kind: def.kind };
  const c = def.convert.fromStorage(deepClone(o));
  c.apiVersion = apiVersionOf(def);
  c.kind = def.kind;
  return goEncode(c);
}

/**
 * The object at the definition's version for read-only use (serialising, matching): a
 * shallow copy sharing nested data with the store. Never mutate it.
 */
export function readOnlyView(def: ResourceDefinition, o: KubeObject): KubeObject {
  if (def.convert) return present(def, o);
  return { ...o, apiVersion: apiVersionOf(def), kind: def.kind };
}

/** The stored form of an object given at the definition's version. */
export function toStorage(def: ResourceDefinition, o: KubeObject): KubeObject {
  if (def.convert) return def.convert.toStorage(o);
  o.apiVersion = storageApiVersion(def);
  return o;
}

/** The stored form of an object the view's Go encoding was applied to: encoded as stored too. */
export function storedForm(def: ResourceDefinition, o: KubeObject): KubeObject {
  return def.convert ? goEncode(toStorage(def, o)) : toStorage(def, o);
}
