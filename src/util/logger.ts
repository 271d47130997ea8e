import { type Logger, pino } from "pino";

export type { Logger };

export const LogLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LogLevels)[number];

/** Structured JSON logs on stderr (stdout stays free for command output). */
export function createLogger(level: LogLevel, name = "petset"): Logger {
  return pino({ name, level, base: { name } }, pino.destination(2));
}
