/** Defaults the CRDs must not declare inside list items, and why. */
import type { Schema } from "./structural.js";

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Drops every `default` inside list items, so `kubectl apply` of an unchanged manifest says
 * `unchanged`: for custom resources kubectl computes a JSON merge patch, which replaces whole
 * lists, and a default the server wrote into an item (`ports[].protocol: TCP`) makes the
 * user's list differ from the live one on every apply. Kubernetes requires a list-map key to
 * be required or defaulted, so a list-map whose key loses its default becomes an atomic list
 * (container `ports` keyed by containerPort+protocol, `imagePullSecrets` keyed by name): it
 * still validates every item, and server-side apply owns it as a whole. Versions do not
 * depend on these defaults: src/versions/canonical-defaults.ts strips them before hashing.
 * The PetSetVersion CRD drops them too, so a version stores the template exactly as the
 * PetSet has it (a default added only on the version's side would show in every delta).
 */
export function withoutListItemDefaults(schema: Schema, inListItem = false): Schema {
  const out: Schema = { ...schema };
  if (inListItem) delete out.default;
  if (isSchema(out.properties)) {
    const props: Schema = {};
    for (const [name, child] of Object.entries(out.properties))
      props[name] = isSchema(child) ? withoutListItemDefaults(child, inListItem) : child;
    out.properties = props;
  }
  if (isSchema(out.additionalProperties))
    out.additionalProperties = withoutListItemDefaults(out.additionalProperties, inListItem);
  if (isSchema(out.items)) {
    const items = withoutListItemDefaults(out.items, true);
    out.items = items;
    const keys = out["x-kubernetes-list-map-keys"];
    const required = Array.isArray(items.required) ? items.required : [];
    if (Array.isArray(keys) && keys.some((k) => !required.includes(k))) {
      out["x-kubernetes-list-type"] = "atomic";
      delete out["x-kubernetes-list-map-keys"];
    }
  }
  return out;
}
