/**
 * Issue 30, alert rules: each alert of deploy/components/prometheus/prometheusrule.yaml (the
 * chart's PrometheusRule is the same file) has a unit test run by `promtool test rules`:
 * synthetic series in, the alerts that fire (labels and rendered annotations) out, including
 * the cases that must not fire and the `for` delay.
 *
 * promtool is built by test/cluster/build-promtool.sh (a wrapper module around Prometheus);
 * without it these tests are skipped with that message.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";

type Obj = Record<string, unknown>;
interface Rule {
  alert: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const PROMTOOL = execFileSync("bash", ["test/cluster/build-promtool.sh", "--path"]).toString().trim();
const havePromtool = existsSync(PROMTOOL);
const ruleObject = parse(readFileSync("deploy/components/prometheus/prometheusrule.yaml", "utf8")) as {
  spec: { groups: { name: string; rules: Rule[] }[] };
};
const rules = new Map(ruleObject.spec.groups.flatMap((g) => g.rules.map((r) => [r.alert, r] as const)));

/** An alert as it fires: the rule's labels and its annotations rendered for these labels. */
function fired(alert: string, labels: Record<string, string>, value = ""): Obj {
  const rule = rules.get(alert);
  if (!rule) throw new Error(`no alert ${alert}`);
  const render = (t: string) =>
    t
      .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_m, l: string) => labels[l] ?? "")
      .replace(/\{\{ \$value \| humanize \}\}/g, value);
  return {
    exp_labels: { ...labels, ...rule.labels },
    exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, render(v)])),
  };
}

const condition = (reason: string, petset = "db") =>
  `petset_condition{namespace="shop", petset="${petset}", type="Progressing", status="False", reason="${reason}"}`;

/** One promtool test case per alert and situation: [name, test]. */
const cases: [string, Obj][] = [
  ...(
    [
      ["PetSetProgressDeadlineExceeded", "ProgressDeadlineExceeded", "1m"],
      ["PetSetHookFailed", "HookFailed", "1m"],
      ["PetSetInvalidSpec", "InvalidSpec", "5m"],
    ] as const
  ).map(([alert, reason, delay]): [string, Obj] => [
    `${alert}: fires after ${delay} of reason ${reason}, for that PetSet only`,
    {
      interval: "30s",
      input_series: [
        { series: condition(reason), values: "1x40" },
        // Another PetSet with another reason: not this alert.
        {
          series: condition("RolloutComplete", "web").replace('status="False"', 'status="True"'),
          values: "1x40",
        },
      ],
      alert_rule_test: [
        { eval_time: "30s", alertname: alert, exp_alerts: [] },
        {
          eval_time: "10m",
          alertname: alert,
          exp_alerts: [fired(alert, { namespace: "shop", petset: "db" })],
        },
      ],
    },
  ]),
  [
    "PetSetControllerNotLeading: fires when every replica reports 0, not while one leads",
    {
      interval: "1m",
      input_series: [
        { series: 'petset_leader{namespace="petset-system", pod="ctl-a"}', values: "1x5 0x10" },
        { series: 'petset_leader{namespace="petset-system", pod="ctl-b"}', values: "0x15" },
      ],
      alert_rule_test: [
        { eval_time: "4m", alertname: "PetSetControllerNotLeading", exp_alerts: [] },
        { eval_time: "9m", alertname: "PetSetControllerNotLeading", exp_alerts: [] },
        {
          eval_time: "12m",
          alertname: "PetSetControllerNotLeading",
          exp_alerts: [fired("PetSetControllerNotLeading", {})],
        },
      ],
    },
  ],
  [
    "PetSetControllerNotLeading: fires when no replica is scraped at all",
    {
      interval: "1m",
      input_series: [{ series: 'up{job="other"}', values: "1x10" }],
      alert_rule_test: [
        {
          eval_time: "6m",
          alertname: "PetSetControllerNotLeading",
          exp_alerts: [fired("PetSetControllerNotLeading", {})],
        },
      ],
    },
  ],
  [
    "PetSetControllerSyncErrors: fires after 15m of failing syncs, not on successful ones",
    {
      interval: "1m",
      input_series: [
        {
          series: 'petset_syncs_total{namespace="petset-system", pod="ctl-a", result="error"}',
          values: "0+60x40",
        },
        {
          series: 'petset_syncs_total{namespace="petset-system", pod="ctl-a", result="ok"}',
          values: "0+600x40",
        },
        {
          series: 'petset_syncs_total{namespace="petset-system", pod="ctl-b", result="error"}',
          values: "0x40",
        },
      ],
      alert_rule_test: [
        { eval_time: "10m", alertname: "PetSetControllerSyncErrors", exp_alerts: [] },
        {
          eval_time: "25m",
          alertname: "PetSetControllerSyncErrors",
          exp_alerts: [
            fired("PetSetControllerSyncErrors", { namespace: "petset-system", pod: "ctl-a" }, "1"),
          ],
        },
      ],
    },
  ],
];

let dir: string | undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function promtoolTest(test: Obj): Promise<{ code: number; out: string }> {
  dir ??= mkdtempSync(join(tmpdir(), "petset-promtool-"));
  const rulesFile = join(dir, "rules.yaml");
  writeFileSync(rulesFile, stringify(ruleObject.spec));
  const testFile = join(dir, `test-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(testFile, stringify({ rule_files: [rulesFile], evaluation_interval: "30s", tests: [test] }));
  return new Promise((resolve) => {
    execFile(PROMTOOL, ["test", "rules", testFile], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

// make test builds promtool first: in CI its absence is a failure, not a skip.
it.runIf(!havePromtool && process.env.CI === "true")("promtool is built (make test builds it)", () => {
  expect(existsSync(PROMTOOL), `${PROMTOOL} is missing: bash test/cluster/build-promtool.sh`).toBe(true);
});

describe.skipIf(!havePromtool)(
  `alert rules under promtool test rules${havePromtool ? "" : " (skipped: no promtool; bash test/cluster/build-promtool.sh builds it)"}`,
  () => {
    it("every alert has a test below", () => {
      const tested = new Set(
        cases.flatMap(([, t]) => (t.alert_rule_test as { alertname: string }[]).map((a) => a.alertname)),
      );
      expect([...rules.keys()].sort()).toEqual([...tested].sort());
    });

    it.each(cases)("%s", async (_name, test) => {
      const r = await promtoolTest(test);
      expect(r.out).toContain("SUCCESS");
      expect(r.code).toBe(0);
    });
  },
);
