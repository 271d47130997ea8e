/**
 * The parts of kube's Service validation (pkg/apis/core/validation ValidateService,
 * ValidateServiceUpdate) the shim enforces, with kube's messages: ports (number range, names,
 * protocol, targetPort) and the immutability of an allocated cluster IP.
 */
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { isPlainObject, type KubeObject } from "../types.js";

type Obj = Record<string, unknown>;

const PORT_RANGE = "must be between 1 and 65535, inclusive";
const PROTOCOLS = ["SCTP", "TCP", "UDP"];

function specOf(o: KubeObject): Obj {
  return isPlainObject(o.spec) ? o.spec : {};
}

function validPortNumber(n: unknown): boolean {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** validation.IsValidPortName's messages. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

function dns1123LabelErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 63) errs.push("must be no more than 63 characters");
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

function validatePort(p: Obj, path: string, requireName: boolean, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof p.name === "string" ? p.name : "";
  if (requireName && !name) errs.push(fieldRequired(`${path}.name`));
  else if (name) {
    for (const m of dns1123LabelErrors(name)) errs.push(fieldInvalid(`${path}.name`, name, m));
    if (names.has(name))
      errs.push({
        type: "FieldValueDuplicate",
        field: `${path}.name`,
        message: `${path}.name: Duplicate value: "${name}"`,
      });
    names.add(name);
  }
  if (!validPortNumber(p.port)) errs.push(fieldInvalid(`${path}.port`, p.port ?? 0, PORT_RANGE));
  if (!p.protocol) errs.push(fieldRequired(`${path}.protocol`));
  else if (!PROTOCOLS.includes(String(p.protocol)))
    errs.push(fieldNotSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
  const target = p.targetPort;
  if (typeof target === "string") {
    for (const m of portNameErrors(target)) errs.push(fieldInvalid(`${path}.targetPort`, target, m));
  } else if (target !== undefined && target !== 0 && !validPortNumber(target)) {
    errs.push(fieldInvalid(`${path}.targetPort`, target, PORT_RANGE));
  }
  return errs;
}

export function validateService(svc: KubeObject): FieldError[] {
  const ports = specOf(svc).ports;
  if (!Array.isArray(ports)) return [];
  const names = new Set<string>();
  return ports.flatMap((p, i) =>
    isPlainObject(p) ? validatePort(p, `spec.ports[${i}]`, ports.length > 1, names) : [],
  );
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** Go's %#v of a []string, as kube prints the bad value of a clusterIPs error. */
function goStringSlice(v: string[]): string {
  return `[]string{${v.map((s) => JSON.stringify(s)).join(", ")}}`;
}

/**
 * kube's NormalizeClusterIPs on update: a changed `clusterIP` with unchanged `clusterIPs`
 * means the client only knows the singular field, so the plural follows it.
 */
export function normalizeClusterIPs(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  if (spec.clusterIP === oldSpec.clusterIP) return;
  if (JSON.stringify(stringList(spec.clusterIPs)) !== JSON.stringify(stringList(oldSpec.clusterIPs))) return;
  if (spec.clusterIP) spec.clusterIPs = [spec.clusterIP];
  else delete spec.clusterIPs;
}

/** validateUpgradeDowngradeClusterIPs: the primary cluster IP never changes once set. */
export function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  if (spec.type === "ExternalName" || oldSpec.type === "ExternalName") return [];
  if (spec.clusterIP === "None" && oldSpec.clusterIP === "None") return [];
  const ips = stringList(spec.clusterIPs);
  const oldIps = stringList(oldSpec.clusterIPs);
  const changed = (i: number): FieldError => ({
    type: "FieldValueInvalid",
    field: `spec.clusterIPs[${i}]`,
    message: `spec.clusterIPs[${i}]: Invalid value: ${goStringSlice(ips)}: may not change once set`,
  });
  if (ips.length === oldIps.length) return oldIps.flatMap((ip, i) => (ip !== ips[i] ? [changed(i)] : []));
  if (ips.length < oldIps.length && ips.length === 0)
    return [
      {
        type: "FieldValueInvalid",
        field: "spec.clusterIPs[0]",
        message: "spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset",
      },
    ];
  return oldIps.length > 0 && ips[0] !== oldIps[0] ? [changed(0)] : [];
}
