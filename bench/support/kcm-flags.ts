/**
 * What bounds kube-controller-manager's figures in a comparison, read from its command line
 * (/proc/<pid>/cmdline, NUL-separated): the client QPS and burst and the controllers it runs.
 * Flags left out take kube-controller-manager 1.33's defaults (--kube-api-qps 20, burst 30,
 * --controllers "*"). Pure; table-tested in test/unit/bench/kcm-flags.test.ts.
 */

export const KCM_DEFAULT_QPS = 20;
export const KCM_DEFAULT_BURST = 30;

export interface KcmSettings {
  kubeApiQps: number;
  kubeApiBurst: number;
  /** --controllers as given ("*" when left out). */
  controllers: string[];
  /** Each controller with its own client (and its own QPS/burst) under its own service account. */
  serviceAccountCredentials: boolean;
}

/** The arguments of /proc/<pid>/cmdline (NUL-separated, with a trailing NUL). */
export function splitCmdline(text: string): string[] {
  return text.split("\0").filter((a) => a !== "");
}

/** The value of `--name=value` or `--name value`; the last one wins, as in pflag. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
    else if (a === `--${name}` && i + 1 < args.length && !(args[i + 1] ?? "").startsWith("--"))
      value = args[++i];
  }
  return value;
}

/** A boolean flag: `--name` or `--name=true|false` (pflag takes no separate value for booleans). */
export function boolFlag(args: readonly string[], name: string): boolean {
  let value = false;
  for (const a of args) {
    if (a === `--${name}`) value = true;
    else if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3) === "true";
  }
  return value;
}

export function kcmSettings(args: readonly string[]): KcmSettings {
  const number = (name: string, fallback: number) => {
    const v = flagValue(args, name);
    const n = v === undefined ? fallback : Number(v);
    if (!Number.isFinite(n)) throw new Error(`--${name}=${v}: not a number`);
    return n;
  };
  const controllers = flagValue(args, "controllers");
  return {
    kubeApiQps: number("kube-api-qps", KCM_DEFAULT_QPS),
    kubeApiBurst: number("kube-api-burst", KCM_DEFAULT_BURST),
    controllers: controllers === undefined ? ["*"] : controllers.split(",").filter((c) => c !== ""),
    serviceAccountCredentials: boolFlag(args, "use-service-account-credentials"),
  };
}
