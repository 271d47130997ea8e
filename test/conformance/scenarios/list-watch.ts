/** Lists (label and field selectors, pagination) and watches (resume, bookmarks, 410). */
import { isObject } from "../normalize.js";
import type { Json, Scenario, Step } from "../types.js";
import {
  because,
  configMap,
  core,
  del,
  eventTypes,
  get,
  MERGE_PATCH,
  itemNames as names,
  patch,
  petSet,
  petsets,
  post,
} from "./helpers.js";

const labelled: [string, Record<string, string>][] = [
  ["a", { env: "prod", tier: "web" }],
  ["b", { env: "dev", tier: "web" }],
  ["c", { env: "prod" }],
  ["d", {}],
];
const createLabelled: Step[] = labelled.map(([n, labels]) =>
  post(
    `create-${n}`,
    core("configmaps"),
    configMap(n, { a: "1" }, Object.keys(labels).length ? { labels } : {}),
  ),
);

const selectorSteps = (selectors: string[]): Step[] =>
  selectors.map((s, i) =>
    get(`select-${i}`, core("configmaps"), 200, { query: { labelSelector: s }, compare: itemNames }),
  );

/** Which objects a selector selects: the objects themselves are compared where they are created. */
const itemNames = because(
  "the step is about which objects the selector selects; each object's content is compared where it is created",
  names,
);

/** Projection: whether a BOOKMARK arrived, not when (the timing is the server's). */
const hasBookmark = because(
  "when bookmarks are sent, and how many, is each server's timing",
  (body: Json): Json => Array.isArray(body) && body.some((e) => isObject(e) && e.type === "BOOKMARK"),
);

export const listWatchScenarios: Scenario[] = [
  {
    id: "list/label-selectors",
    steps: [
      ...createLabelled,
      ...selectorSteps([
        "env=prod",
        "env==prod",
        "env!=prod",
        "env in (prod,dev)",
        "env notin (prod)",
        "tier",
        "!tier",
        "env=prod,tier=web",
        "env,!tier",
      ]),
    ],
  },
  {
    id: "list/invalid-label-selector",
    steps: [
      get("unclosed", core("configmaps"), 400, { query: { labelSelector: "env in (prod" } }),
      get("bad-operator", core("configmaps"), 400, { query: { labelSelector: "env>>prod" } }),
    ],
  },
  {
    id: "list/field-selectors",
    steps: [
      ...createLabelled.slice(0, 2),
      get("name", core("configmaps"), 200, {
        query: { fieldSelector: "metadata.name=a" },
        compare: itemNames,
      }),
      get("not-name", core("configmaps"), 200, {
        query: { fieldSelector: "metadata.name!=a" },
        compare: itemNames,
      }),
      get("namespace", core("configmaps"), 200, {
        query: { fieldSelector: "metadata.namespace={{ns}}" },
        compare: itemNames,
      }),
      get("unsupported", core("configmaps"), 400, { query: { fieldSelector: "data.a=1" } }),
    ],
  },
  {
    id: "list/petsets-selectors",
    steps: [
      post("create-web", petsets(), petSet("web", {}, { labels: { tier: "web" } })),
      post("create-db", petsets(), petSet("db", {}, { labels: { tier: "db" } })),
      get("by-label", petsets(), 200, { query: { labelSelector: "tier=db" }, compare: itemNames }),
      get("by-name", petsets(), 200, { query: { fieldSelector: "metadata.name=web" }, compare: itemNames }),
      get("list", petsets()),
    ],
  },
  {
    id: "list/limit-continue",
    steps: [
      ...["e", "a", "d", "b", "c"].map((n) => post(`create-${n}`, core("configmaps"), configMap(n))),
      get("page-1", core("configmaps"), 200, { query: { limit: "2" }, save: { next: "metadata.continue" } }),
      get("page-2", core("configmaps"), 200, {
        query: { limit: "2", continue: "{{next}}" },
        save: { last: "metadata.continue" },
      }),
      get("page-3", core("configmaps"), 200, { query: { limit: "2", continue: "{{last}}" } }),
      get("bad-token", core("configmaps"), 400, { query: { limit: "2", continue: "garbage" } }),
    ],
  },
  {
    // A page that fills up with a selector: kube gives a continue token when any object
    // follows, matching or not, and no remainingItemCount (etcd3 store GetList).
    id: "list/limit-selector",
    steps: [
      ...[
        ["a", "x"],
        ["b", "x"],
        ["c", "y"],
      ].map(([n, tier]) =>
        post(`create-${n}`, core("configmaps"), configMap(n!, { a: "1" }, { labels: { tier: tier! } })),
      ),
      get("page-1", core("configmaps"), 200, {
        query: { limit: "2", labelSelector: "tier=x" },
        save: { next: "metadata.continue" },
      }),
      get("page-2", core("configmaps"), 200, {
        query: { limit: "2", labelSelector: "tier=x", continue: "{{next}}" },
      }),
      get("unfiltered", core("configmaps"), 200, { query: { limit: "2" } }),
    ],
  },
  {
    id: "list/all-namespaces",
    steps: [
      post(
        "create",
        core("configmaps"),
        configMap("c1", { a: "1" }, { labels: { "conformance-run": "{{ns}}" } }),
      ),
      get("list", "/api/v1/configmaps", 200, {
        query: { labelSelector: "conformance-run={{ns}}" },
        compare: itemNames,
      }),
    ],
  },
  {
    id: "watch/from-resource-version",
    steps: [
      post("create", core("configmaps"), configMap("c1"), 201, { save: { rv: "metadata.resourceVersion" } }),
      patch("update", core("configmaps", "c1"), MERGE_PATCH, { data: { a: "2" } }),
      post("create-other", core("configmaps"), configMap("c2")),
      del("delete", core("configmaps", "c1")),
      get("watch", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "{{rv}}", timeoutSeconds: "5" },
        watch: { events: 3 },
      }),
    ],
  },
  {
    id: "watch/initial-events",
    steps: [
      post("create-a", core("configmaps"), configMap("a")),
      post("create-b", core("configmaps"), configMap("b")),
      get("watch", core("configmaps"), 200, {
        query: { watch: "true", timeoutSeconds: "5" },
        watch: { events: 2 },
      }),
      get("watch-rv-0", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "0", timeoutSeconds: "5" },
        watch: { events: 2 },
      }),
    ],
  },
  {
    id: "watch/selectors",
    steps: [
      post("create-a", core("configmaps"), configMap("a", { a: "1" }, { labels: { w: "1" } }), 201, {
        save: { rv: "metadata.resourceVersion" },
      }),
      post("create-b", core("configmaps"), configMap("b")),
      patch("label-b", core("configmaps", "b"), MERGE_PATCH, { metadata: { labels: { w: "1" } } }),
      patch("unlabel-a", core("configmaps", "a"), MERGE_PATCH, { metadata: { labels: { w: null } } }),
      get("by-label", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "{{rv}}", labelSelector: "w=1", timeoutSeconds: "5" },
        watch: { events: 2 },
      }),
      get("by-name", core("configmaps"), 200, {
        query: {
          watch: "true",
          resourceVersion: "{{rv}}",
          fieldSelector: "metadata.name=b",
          timeoutSeconds: "5",
        },
        watch: { events: 2 },
      }),
    ],
  },
  {
    id: "watch/petsets",
    steps: [
      post("create", petsets(), petSet("web"), 201, { save: { rv: "metadata.resourceVersion" } }),
      patch("scale", petsets("web"), MERGE_PATCH, { spec: { replicas: 3 } }),
      patch("status", petsets("web/status"), MERGE_PATCH, { status: { replicas: 3 } }),
      del("delete", petsets("web")),
      get("watch", petsets(), 200, {
        query: { watch: "true", resourceVersion: "{{rv}}", timeoutSeconds: "5" },
        watch: { events: 3 },
      }),
    ],
  },
  {
    id: "watch/bookmarks",
    steps: [
      post("create", core("configmaps"), configMap("c1"), 201, { save: { rv: "metadata.resourceVersion" } }),
      get("watch", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "{{rv}}", allowWatchBookmarks: "true", timeoutSeconds: "4" },
        watch: { timeoutMs: 10_000 },
        compare: hasBookmark,
      }),
    ],
  },
  {
    id: "watch/expired-resource-version",
    steps: [
      get("watch", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "1", timeoutSeconds: "5" },
        watch: { events: 1 },
      }),
      get("watch-types", core("configmaps"), 200, {
        query: { watch: "true", resourceVersion: "1", timeoutSeconds: "5" },
        watch: { events: 1 },
        compare: because(
          "the ERROR event itself is compared whole by the step before; this one checks a second watch ends the same way",
          eventTypes,
        ),
      }),
    ],
  },
  {
    id: "list/expired-resource-version",
    steps: [
      get("not-older-than", core("configmaps"), 200, {
        query: { resourceVersion: "1", resourceVersionMatch: "NotOlderThan" },
        compare: because(
          "NotOlderThan 1 is served from each server's cache at its own resourceVersion; which objects it lists is compared",
          names,
        ),
      }),
      get("match-without-rv", core("configmaps"), 422, { query: { resourceVersionMatch: "Exact" } }),
    ],
  },
];
