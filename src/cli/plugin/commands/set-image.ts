import { z } from "zod";
import type { PetSet } from "../../../api/index.js";
import { type ContainerRef, selectContainers, testName } from "../container-patch.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../errors.js";
import type { JsonPatchOp } from "../petset-api.js";
import { type ContainerEdit, type SetOptions, writeContainerEdit } from "./set-write.js";

/** `CONTAINER=IMAGE`; CONTAINER may be `*` (every container and init container). */
const ImageArgSchema = z
  .string()
  .regex(/^[^=\s]+=\S+$/)
  .transform((arg) => {
    const at = arg.indexOf("=");
    return { container: arg.slice(0, at), image: arg.slice(at + 1) };
  });
export type ImageArg = z.output<typeof ImageArgSchema>;

export function parseImageArgs(args: readonly string[], name: string): ImageArg[] {
  if (args.length === 0)
    throw new UsageError(
      `set image needs at least one CONTAINER=IMAGE, e.g. kubectl petset set image ${name} app=nginx:1.28`,
    );
  return args.map((arg) => {
    const parsed = ImageArgSchema.safeParse(arg);
    if (!parsed.success)
      throw new UsageError(`set image: "${arg}" is not CONTAINER=IMAGE (e.g. app=nginx:1.28)`);
    return parsed.data;
  });
}

/**
 * Ops that set each named container's image and nothing else: a `test` of each container's
 * name at its index, then an `add` (set) of its `image`. A container already at its image
 * is left out; one named twice is an error.
 */
export function planSetImage(petSet: PetSet, args: readonly ImageArg[]): ContainerEdit {
  const targets = new Map<string, { ref: ContainerRef; image: string }>();
  for (const { container, image } of args) {
    for (const ref of selectContainers(petSet, container)) {
      if (targets.has(ref.path))
        throw new UsageError(`set image: container "${ref.name}" is given more than one image`);
      targets.set(ref.path, { ref, image });
    }
  }
  const changed = [...targets.values()].filter(({ ref, image }) => ref.container.image !== image);
  const tests: JsonPatchOp[] = changed.map(({ ref }) => testName(ref));
  const writes: JsonPatchOp[] = changed.map(({ ref, image }) => ({
    op: "add",
    path: `${ref.path}/image`,
    value: image,
  }));
  const changes = changed.map(
    ({ ref, image }) =>
      `${ref.name}: ${typeof ref.container.image === "string" ? ref.container.image : "<none>"} -> ${image}`,
  );
  return { ops: [...tests, ...writes], changes };
}

/**
 * `kubectl petset set image NAME CONTAINER=IMAGE... [--cause TEXT] [--dry-run]`: a JSON
 * patch of exactly those images (ports, mounts and the other containers stay as they are).
 */
export async function setImageCommand(
  ctx: CommandContext,
  name: string,
  args: readonly string[],
  options: SetOptions,
): Promise<number> {
  const parsed = parseImageArgs(args, name);
  return writeContainerEdit(ctx, name, "image", (petSet) => planSetImage(petSet, parsed), options);
}
