/** The pod rules kube enforces that clients notice: required fields, names, volumes, immutability. */
import { fieldForbidden, fieldInvalid, fieldRequired } from "../errors.js";
import { validateName } from "../registry/object-meta.js";
import type { FieldError } from "../schema/index.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { validateVolumeMounts, validateVolumes } from "./pod-volume-validation.js";

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

export function validatePodSpec(spec: unknown, path = "spec"): FieldError[] {
  if (!isPlainObject(spec)) return [fieldRequired(path)];
  // kube validates volumes first: the containers' mounts refer to them.
  const volumes = validateVolumes(spec, path);
  const errs: FieldError[] = [...volumes.errs];
  const containers = list(spec.containers);
  if (containers.length === 0) errs.push(fieldRequired(`${path}.containers`));
  const seen = new Set<string>();
  const check = (cs: Obj[], field: string) =>
    cs.forEach((c, i) => {
      const f = `${path}.${field}[${i}]`;
      if (typeof c.name !== "string" || !c.name) errs.push(fieldRequired(`${f}.name`));
      else {
        errs.push(...validateName(c.name, "label", `${f}.name`));
        if (seen.has(c.name))
          errs.push({
            type: "FieldValueDuplicate",
            field: `${f}.name`,
            message: `${f}.name: Duplicate value: "${c.name}"`,
            badValue: c.name,
          });
        seen.add(c.name);
      }
      if (typeof c.image !== "string" || !c.image.trim()) errs.push(fieldRequired(`${f}.image`));
      errs.push(...validateEnvNames(c, f));
      errs.push(...validateVolumeMounts(c, f, volumes.names));
    });
  check(list(spec.initContainers), "initContainers");
  check(containers, "containers");
  const rp = spec.restartPolicy;
  if (rp !== undefined && !["Always", "OnFailure", "Never"].includes(String(rp)))
    errs.push({
      type: "FieldValueNotSupported",
      field: `${path}.restartPolicy`,
      message: `${path}.restartPolicy: Unsupported value: "${String(rp)}": supported values: "Always", "OnFailure", "Never"`,
      badValue: rp,
    });
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && (typeof grace !== "number" || grace < 0))
    errs.push(
      fieldInvalid(`${path}.terminationGracePeriodSeconds`, grace, "must be greater than or equal to 0"),
    );
  return errs;
}

/** kube's env var names with RelaxedEnvironmentVariableValidation (default on since 1.32). */
const RELAXED_ENV_NAME =
  "a valid environment variable name must consist only of printable ASCII characters other than '='";
function validateEnvNames(c: Obj, f: string): FieldError[] {
  const errs: FieldError[] = [];
  list(c.env).forEach((e, j) => {
    const field = `${f}.env[${j}].name`;
    const name = e.name;
    if (typeof name !== "string" || name === "") errs.push(fieldRequired(field));
    // Printable ASCII (0x20-0x7e) but '='.
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(name)) errs.push(fieldInvalid(field, name, RELAXED_ENV_NAME));
  });
  return errs;
}

const UPDATABLE = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

/** kube's ValidatePodUpdate: only images, activeDeadlineSeconds, tolerations (added) and gates change. */
export function validatePodUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const spec = (pod.spec ?? {}) as Obj;
  const oldSpec = (old.spec ?? {}) as Obj;
  const errs: FieldError[] = [];
  const oldContainers = list(oldSpec.containers);
  const newContainers = list(spec.containers);
  if (oldContainers.length !== newContainers.length)
    return [fieldForbidden("spec.containers", "pod updates may not add or remove containers")];
  const oldTolerations = list(oldSpec.tolerations);
  const newTolerations = list(spec.tolerations);
  if (!oldTolerations.every((t) => newTolerations.some((n) => deepEqual(n, t))))
    errs.push(
      fieldForbidden(
        "spec.tolerations",
        "existing toleration can not be modified except its tolerationSeconds",
      ),
    );
  const oldGates = list(oldSpec.schedulingGates);
  const newGates = list(spec.schedulingGates);
  if (newGates.some((g) => !oldGates.some((o) => deepEqual(o, g))))
    errs.push(
      fieldForbidden("spec.schedulingGates", "only deletion is allowed, but found new scheduling gate"),
    );
  const munged: Obj = { ...spec };
  const withOldImages = (cs: Obj[], olds: Obj[]) => cs.map((c, i) => ({ ...c, image: olds[i]?.image }));
  munged.containers = withOldImages(newContainers, oldContainers);
  if (Array.isArray(spec.initContainers))
    munged.initContainers = withOldImages(list(spec.initContainers), list(oldSpec.initContainers));
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.tolerations = oldSpec.tolerations;
  munged.schedulingGates = oldSpec.schedulingGates;
  if (!deepEqual(dropUndefined(munged), dropUndefined(oldSpec))) {
    const diff = describeDiff(oldSpec, munged);
    errs.push(
      fieldForbidden("spec", `pod updates may not change fields other than ${UPDATABLE.join(",")}\n${diff}`),
    );
  }
  return errs;
}

function dropUndefined(o: Obj): Obj {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A short field-level diff standing in for kube's cmp.Diff output. */
function describeDiff(a: Obj, b: Obj): string {
  const lines: string[] = ["  core.PodSpec{"];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (deepEqual(a[k], b[k])) continue;
    if (a[k] !== undefined) lines.push(`- \t${k}: ${JSON.stringify(a[k])},`);
    if (b[k] !== undefined) lines.push(`+ \t${k}: ${JSON.stringify(b[k])},`);
  }
  lines.push("  }");
  return lines.join("\n");
}
