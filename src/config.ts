/**
 * Configuration is built once, from command-line flags, validated with zod, and passed down
 * (no module reads process.env at import time). Each command has its own schema.
 */
import { z } from "zod";
import { LogLevels } from "./util/logger.js";

const port = z.coerce.number().int().min(0).max(65535);

export const CommonFlagsSchema = z.object({
  logLevel: z.enum(LogLevels).default("info"),
});

export const ControllerFlagsSchema = CommonFlagsSchema.extend({
  kubeconfig: z.string().optional(),
  context: z.string().optional(),
  namespace: z.string().optional(),
  metricsAddr: z
    .string()
    .regex(/^([0-9a-zA-Z.\-[\]:]*):[0-9]+$/, "must be host:port or :port")
    .default(":8080"),
  leaderElect: z.boolean().default(true),
  leaseName: z.string().default("petset-controller"),
  leaseNamespace: z.string().default("default"),
  leaseDuration: z.coerce.number().int().min(1).default(15),
  renewDeadline: z.coerce.number().int().min(1).default(10),
  retryPeriod: z.coerce.number().int().min(1).default(2),
  workers: z.coerce.number().int().min(1).max(64).default(4),
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
  listen: z.string().default("127.0.0.1"),
  tokenFile: z.string().optional(),
  kubeconfig: z.string().default(".petset/kubeconfig"),
  dataDir: z.string().optional(),
  apply: z.array(z.string()).default([]),
  controller: z.boolean().default(true),
  readyDelayMs: z.coerce.number().int().min(0).default(300),
  eventTtl: z.coerce.number().int().min(1).default(3600),
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
