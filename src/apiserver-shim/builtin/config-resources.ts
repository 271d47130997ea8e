/** ConfigMaps, Secrets and ServiceAccounts: plain namespaced data objects. */
import { fieldForbidden, fieldInvalid } from "../errors.js";
import type { FieldError } from "../schema/index.js";
import { configMapTable, secretTable, serviceAccountTable } from "../tables/builtin-tables.js";
import { deepEqual, isPlainObject, type KubeObject } from "../types.js";
import { defineBuiltin } from "./define.js";

const KEY = /^[-._a-zA-Z0-9]+$/;

function validateKeys(obj: KubeObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    const m = obj[f];
    if (!isPlainObject(m)) continue;
    for (const k of Object.keys(m))
      if (!KEY.test(k) || k.length > 253)
        errs.push(
          fieldInvalid(
            `${f}[${k}]`,
            k,
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
          ),
        );
  }
  return errs;
}

export const configMapsDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
  schema: "io.k8s.api.core.v1.ConfigMap",
  shortNames: ["cm"],
  table: configMapTable,
  strategy: {
    validate: (o) => validateKeys(o, ["data", "binaryData"]),
    validateUpdate: (o, old) =>
      old.immutable === true && !deepEqual([o.data, o.binaryData], [old.data, old.binaryData])
        ? [fieldForbidden("data", "field is immutable when `immutable` is set")]
        : validateKeys(o, ["data", "binaryData"]),
  },
});

/** stringData is write-only: folded into data (base64) on every write. */
function foldStringData(o: KubeObject): void {
  if (isPlainObject(o.stringData)) {
    const data = isPlainObject(o.data) ? o.data : {};
    for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v)).toString("base64");
    o.data = data;
  }
  delete o.stringData;
}

export const secretsDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "secrets",
  kind: "Secret",
  namespaced: true,
  schema: "io.k8s.api.core.v1.Secret",
  table: secretTable,
  fieldLabels: (o) => ({ type: String(o.type ?? "") }),
  strategy: {
    applyDefaults(o) {
      o.type ??= "Opaque";
    },
    prepareForCreate(o) {
      o.type ??= "Opaque";
      foldStringData(o);
    },
    prepareForUpdate(o) {
      o.type ??= "Opaque";
      foldStringData(o);
    },
    validate: (o) => validateKeys(o, ["data"]),
    validateUpdate: (o, old) =>
      o.type !== old.type
        ? [
            {
              type: "FieldValueInvalid",
              field: "type",
              message: `type: Invalid value: "${String(o.type)}": field is immutable`,
              badValue: o.type,
            },
          ]
        : validateKeys(o, ["data"]),
  },
});

export const serviceAccountsDefinition = defineBuiltin({
  group: "",
  version: "v1",
  resource: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
  schema: "io.k8s.api.core.v1.ServiceAccount",
  shortNames: ["sa"],
  table: serviceAccountTable,
});
