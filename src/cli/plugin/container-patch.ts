/**
 * Plans JSON patches (RFC 6902) of individual containers of a PetSet's template, for
 * `kubectl petset set image|env`. Pure: PetSet in, ops out.
 *
 * A container is addressed by its index, so every plan starts with a `test` that the
 * container at that index still has the name the plan was made for (and a `test` of each
 * env entry's name before it is replaced or removed): if another writer reorders the list
 * between our read and our write, the API server rejects the whole patch instead of
 * changing the wrong container. Only the named fields are written; ports, volume mounts
 * and everything else stay as they are (a merge patch of `containers` would replace the
 * whole list).
 */
import { z } from "zod";
import { Annotations, type PetSet } from "../../api/index.js";
import { PluginError } from "./errors.js";
import type { JsonPatchOp } from "./petset-api.js";

export type ContainerList = "containers" | "initContainers";

export interface ContainerRef {
  readonly list: ContainerList;
  readonly index: number;
  readonly name: string;
  /** `/spec/template/spec/<list>/<index>` */
  readonly path: string;
  readonly container: Readonly<Record<string, unknown>>;
}

/** A container the command named that the PetSet does not have. */
export class ContainerNotFoundError extends PluginError {
  override name = "ContainerNotFoundError";
  constructor(petSet: PetSet, container: string) {
    super(
      "NotFound",
      `container "${container}" not found in petset "${petSet.metadata.name}": ${listing(petSet)}`,
    );
  }
}

function listing(petSet: PetSet): string {
  const names = (list: ContainerList) => allContainers(petSet, list).map((c) => c.name);
  const main = names("containers");
  const init = names("initContainers");
  const text = main.length > 0 ? `its containers are ${main.join(", ")}` : "it has no containers";
  return init.length > 0 ? `${text}; init containers: ${init.join(", ")}` : text;
}

function allContainers(petSet: PetSet, list: ContainerList): ContainerRef[] {
  const items =
    (list === "containers"
      ? petSet.spec.template.spec.containers
      : petSet.spec.template.spec.initContainers) ?? [];
  return items.map((container, index) => ({
    list,
    index,
    name: container.name,
    path: `/spec/template/spec/${list}/${index}`,
    container,
  }));
}

/**
 * The containers `selector` names: `*` is every container and init container (as kubectl's
 * `set env` and `set image` treat it); a name is that one, in either list.
 */
export function selectContainers(petSet: PetSet, selector: string): ContainerRef[] {
  const all = [...allContainers(petSet, "initContainers"), ...allContainers(petSet, "containers")];
  if (selector === "*") return all;
  const found = all.filter((c) => c.name === selector);
  if (found.length === 0) throw new ContainerNotFoundError(petSet, selector);
  return found;
}

/** `test` that the container at `ref`'s index is still the one named. */
export const testName = (ref: ContainerRef): JsonPatchOp => ({
  op: "test",
  path: `${ref.path}/name`,
  value: ref.name,
});

/** `~` and `/` escaped for a JSON pointer segment (RFC 6901). */
export const pointerSegment = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Ops that set the `kubernetes.io/change-cause` annotation in the same write, so the
 * version the controller records for this change carries it. Without annotations the map
 * is added whole, guarded by a `test` of the resourceVersion (no concurrent writer's
 * annotations can be lost).
 */
export function changeCauseOps(petSet: PetSet, cause: string): JsonPatchOp[] {
  if (petSet.metadata.annotations !== undefined)
    return [
      { op: "add", path: `/metadata/annotations/${pointerSegment(Annotations.changeCause)}`, value: cause },
    ];
  return [
    { op: "test", path: "/metadata/resourceVersion", value: petSet.metadata.resourceVersion },
    { op: "add", path: "/metadata/annotations", value: { [Annotations.changeCause]: cause } },
  ];
}

const EnvVarSchema = z.looseObject({ name: z.string(), value: z.string().optional() });

/** A container's `env`, or [] when it has none. */
export function envOf(ref: ContainerRef): z.infer<typeof EnvVarSchema>[] {
  const parsed = z.array(EnvVarSchema).optional().safeParse(ref.container.env);
  if (!parsed.success)
    throw new PluginError("ServerError", `container "${ref.name}" has an env list that is not valid`);
  return parsed.data ?? [];
}
