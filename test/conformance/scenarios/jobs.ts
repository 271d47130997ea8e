/**
 * batch/v1 Jobs as the API server itself treats them (no controller involved): defaults,
 * the generated selector and labels, validation, template immutability. Creates are dry
 * runs, so no job controller writes status while the scenario runs.
 */
import type { JsonObject, Scenario } from "../types.js";
import { group, JSON_PATCH, patch, post } from "./helpers.js";

const jobs = (name = "") => group("batch/v1", "jobs", name);

function job(
  name: string,
  podSpec: JsonObject = {},
  templateMeta: JsonObject = {},
  spec: JsonObject = {},
): JsonObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: {
        ...(Object.keys(templateMeta).length ? { metadata: templateMeta } : {}),
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "migrate", image: "busybox:1.36", command: ["sh", "-c", "exit 0"] }],
          ...podSpec,
        },
      },
    },
  };
}

const dryRun = { query: { dryRun: "All" } };

export const jobScenarios: Scenario[] = [
  {
    id: "job/defaults-and-generated-selector",
    steps: [
      post("create-labelled", jobs(), job("migrate", {}, { labels: { app: "db" } }), 201, dryRun),
      post("create-unlabelled", jobs(), job("plain"), 201, dryRun),
    ],
  },
  {
    id: "job/invalid",
    steps: [
      post("restart-always", jobs(), job("always", { restartPolicy: "Always" }), 422),
      post("negative-backoff", jobs(), job("neg", {}, {}, { backoffLimit: -1 }), 422),
    ],
  },
  {
    id: "job/template-immutable",
    steps: [
      post("create", jobs(), job("fixed", {}, {}, { suspend: true })),
      patch(
        "change-image",
        jobs("fixed"),
        JSON_PATCH,
        [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "busybox:1.37" }],
        422,
      ),
    ],
  },
];
