/**
 * Configuration is built once, from command-line flags, validated with zod, and passed down
 * (no module reads process.env at import time). Each command has its own schema.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { LogLevels } from "./util/logger.js";

/**
 * A whole number flag in [min, max]; anything else is refused with what is expected (the
 * flag's name is added by parseFlags): `expected a port number 1-65535 (0: any free port), got "abc"`.
 */
export function integerFlag(expected: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const n = typeof value === "number" ? value : /^\s*-?[0-9]+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: "custom", message: `expected ${expected}, got ${JSON.stringify(String(value))}` });
    return z.NEVER;
  });
}

const port = integerFlag("a port number 1-65535 (0: any free port)", 0, 65535);
const seconds = (min: number) => integerFlag(`a whole number of seconds, at least ${min}`, min);

/** An address to bind: an IP address, or a host name (not something that only looks like an IPv4 address). */
const listenAddress = z
  .string()
  .refine((a) => isIP(a) !== 0 || (/^[a-zA-Z0-9.-]+$/.test(a) && !/^[0-9.]+$/.test(a)), {
    error: (issue) =>
      `expected an IP address or host name of this machine (127.0.0.1, ::1, or 0.0.0.0 for every interface), got ${JSON.stringify(String(issue.input))}`,
  });

export const CommonFlagsSchema = z.object({
  logLevel: z.enum(LogLevels).default("info"),
});

export const ControllerFlagsSchema = CommonFlagsSchema.extend({
  kubeconfig: z.string().optional(),
  context: z.string().optional(),
  namespace: z.string().optional(),
  metricsAddr: z
    .string()
    .regex(/^([0-9a-zA-Z.\-[\]:]*):[0-9]+$/, "expected host:port or :port (e.g. :8080)")
    .default(":8080"),
  leaderElect: z.boolean().default(true),
  leaseName: z.string().default("petset-controller"),
  leaseNamespace: z.string().default("default"),
  leaseDuration: seconds(1).default(15),
  renewDeadline: seconds(1).default(10),
  retryPeriod: seconds(1).default(2),
  workers: integerFlag("a whole number of concurrent syncs, 1-64", 1, 64).default(8),
})
  .refine((f) => f.renewDeadline < f.leaseDuration, {
    path: ["renewDeadline"],
    message: "must be less than --lease-duration (a leader must step down before its Lease expires)",
  })
  .refine((f) => f.retryPeriod < f.renewDeadline, {
    path: ["retryPeriod"],
    message: "must be less than --renew-deadline",
  });
export type ControllerConfig = z.infer<typeof ControllerFlagsSchema>;

export const DevFlagsSchema = CommonFlagsSchema.extend({
  port: port.default(0),
  listen: listenAddress.default("127.0.0.1"),
  tokenFile: z.string().optional(),
  kubeconfig: z.string().default(".petset/kubeconfig"),
  dataDir: z.string().optional(),
  apply: z.array(z.string()).default([]),
  controller: z.boolean().default(true),
  readyDelayMs: integerFlag("a whole number of milliseconds, 0 or more", 0).default(300),
  eventTtl: seconds(1).default(3600),
  nodeMonitorGracePeriod: seconds(1).default(50),
});
export type DevConfig = z.infer<typeof DevFlagsSchema>;

/** Parses flags for a command; on error throws a message naming each bad flag. */
export function parseFlags<T extends z.ZodType>(schema: T, flags: unknown): z.infer<T> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `--${kebab(String(i.path[0] ?? ""))}: ${i.message}`);
  throw new FlagError(problems.join("; "));
}

export class FlagError extends Error {
  override name = "FlagError";
}

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
