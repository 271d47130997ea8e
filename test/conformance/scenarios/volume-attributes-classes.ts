/**
 * Issue 26: `storage.k8s.io/v1beta1` VolumeAttributesClasses, which the test control plane serves
 * (VolumeAttributesClass feature gate, `--runtime-config=storage.k8s.io/v1beta1=true`) and the
 * embedded server emulates (src/apiserver-shim/builtin/volume-attributes-classes.ts): discovery
 * of the second storage version, create with the vac-protection finalizer, Table, immutable
 * `driverName` and `parameters` (kube's update validation reports the new object's errors twice),
 * the required parameters, deletion held by the finalizer (no protection controller runs on
 * either backend) and its removal by hand. (A Bound claim naming a class: storage.ts.)
 */
import type { JsonObject, Scenario } from "../types.js";
import { del, get, gone, JSON_PATCH, MERGE_PATCH, patch, post, TABLE } from "./helpers.js";

const classes = (name = "") =>
  `/apis/storage.k8s.io/v1beta1/volumeattributesclasses${name ? `/${name}` : ""}`;

const vac = (name: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "storage.k8s.io/v1beta1",
  kind: "VolumeAttributesClass",
  metadata: { name },
  driverName: "example.com/conformance",
  parameters: { iops: "100" },
  ...extra,
});

const dropFinalizers = [{ op: "remove", path: "/metadata/finalizers" }];

export const volumeAttributesClassScenarios: Scenario[] = [
  {
    id: "discovery/storage-versions",
    steps: [get("group", "/apis/storage.k8s.io"), get("v1beta1", "/apis/storage.k8s.io/v1beta1")],
  },
  {
    id: "volumeattributesclass/crud",
    steps: [
      post("create", classes(), vac("{{ns}}-gold")),
      get("table", classes("{{ns}}-gold"), 200, { accept: TABLE }),
      patch("label", classes("{{ns}}-gold"), MERGE_PATCH, { metadata: { labels: { tier: "gold" } } }),
      patch("change-driver", classes("{{ns}}-gold"), MERGE_PATCH, { driverName: "example.com/other" }, 422),
      patch("change-parameters", classes("{{ns}}-gold"), MERGE_PATCH, { parameters: { iops: "200" } }, 422),
      patch(
        "remove-parameters",
        classes("{{ns}}-gold"),
        JSON_PATCH,
        [{ op: "remove", path: "/parameters" }],
        422,
      ),
      post("no-parameters", classes(), vac("{{ns}}-bad", { parameters: {} }), 422),
      post("no-driver", classes(), { ...vac("{{ns}}-bad"), driverName: "" }, 422),
      post("bad-driver", classes(), vac("{{ns}}-bad", { driverName: "not a driver" }), 422),
      del("delete", classes("{{ns}}-gold")),
      get("terminating", classes("{{ns}}-gold")),
      patch("release", classes("{{ns}}-gold"), JSON_PATCH, dropFinalizers),
      gone("gone", classes("{{ns}}-gold")),
    ],
  },
];
