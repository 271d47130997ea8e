/**
 * The committed descriptors of the built-in kinds (hack/gen-builtin-protobuf.ts): per
 * message, its fields' protobuf numbers and types and their Go JSON tags (name, omitempty,
 * pointer, inline). The protobuf decoder reads request bodies with them; the Go encoding
 * (builtin/go-encoding.ts) prints objects as kube's typed JSON encoding does.
 */
import { readFileSync } from "node:fs";
import { locateAsset } from "../assets.js";

export interface FieldDescriptor {
  n: number;
  json: string;
  type: string;
  repeated?: boolean;
  map?: [string, string];
  inline?: boolean;
  omitEmpty?: boolean;
  pointer?: boolean;
}

export interface Descriptors {
  /** `apiVersion/Kind` → root message name. */
  roots: Record<string, string>;
  messages: Record<string, Record<string, FieldDescriptor>>;
}

export const META = "k8s.io.apimachinery.pkg.apis.meta.v1.";

/** kube's wrapper types with a JSON form of their own (not their protobuf message). */
export const SPECIAL_TYPES = new Set([
  `${META}Time`,
  `${META}MicroTime`,
  `${META}Duration`,
  `${META}FieldsV1`,
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
  "k8s.io.apimachinery.pkg.api.resource.Quantity",
]);

let descriptors: Descriptors | undefined;

export function loadDescriptors(): Descriptors {
  descriptors ??= JSON.parse(readFileSync(locateAsset("protobuf/descriptors.json"), "utf8")) as Descriptors;
  return descriptors;
}
