/** Every `petset` flag error names the flag and says what is expected (issue 31 item 4). */
import { describe, expect, it } from "vitest";
import { DemoFlagsSchema } from "../../../src/cli/demo-command.js";
import { explainStartError } from "../../../src/cli/dev-command.js";
import { ControllerFlagsSchema, DevFlagsSchema, parseFlags } from "../../../src/config.js";

describe("issue 31 item 4: petset flag errors name the flag and what is expected", () => {
  const cases: [string, () => unknown, string][] = [
    [
      "dev --port abc",
      () => parseFlags(DevFlagsSchema, { port: "abc" }),
      '--port: expected a port number 1-65535 (0: any free port), got "abc"',
    ],
    [
      "dev --port 1.5",
      () => parseFlags(DevFlagsSchema, { port: "1.5" }),
      '--port: expected a port number 1-65535 (0: any free port), got "1.5"',
    ],
    [
      "dev --port 65536",
      () => parseFlags(DevFlagsSchema, { port: "65536" }),
      '--port: expected a port number 1-65535 (0: any free port), got "65536"',
    ],
    [
      "dev --listen 999.1.1.1",
      () => parseFlags(DevFlagsSchema, { listen: "999.1.1.1" }),
      '--listen: expected an IP address or host name of this machine (127.0.0.1, ::1, or 0.0.0.0 for every interface), got "999.1.1.1"',
    ],
    [
      "dev --ready-delay-ms soon",
      () => parseFlags(DevFlagsSchema, { readyDelayMs: "soon" }),
      '--ready-delay-ms: expected a whole number of milliseconds, 0 or more, got "soon"',
    ],
    [
      "dev --event-ttl 0",
      () => parseFlags(DevFlagsSchema, { eventTtl: "0" }),
      '--event-ttl: expected a whole number of seconds, at least 1, got "0"',
    ],
    [
      "controller --workers 65",
      () => parseFlags(ControllerFlagsSchema, { workers: "65" }),
      '--workers: expected a whole number of concurrent syncs, 1-64, got "65"',
    ],
    [
      "controller --lease-duration x",
      () => parseFlags(ControllerFlagsSchema, { leaseDuration: "x" }),
      '--lease-duration: expected a whole number of seconds, at least 1, got "x"',
    ],
    [
      "controller --metrics-addr 8080",
      () => parseFlags(ControllerFlagsSchema, { metricsAddr: "8080" }),
      "--metrics-addr: expected host:port or :port (e.g. :8080)",
    ],
    [
      "demo --step-timeout -1",
      () => parseFlags(DemoFlagsSchema, { stepTimeout: "-1" }),
      '--step-timeout: expected a whole number of seconds, at least 1, got "-1"',
    ],
  ];
  it.each(cases)("%s", (_what, parse, message) => {
    expect(parse).toThrow(message);
  });

  it.each([["0.0.0.0"], ["::1"], ["localhost"], ["127.0.0.1"]])("dev --listen %s is accepted", (listen) => {
    expect(parseFlags(DevFlagsSchema, { listen }).listen).toBe(listen);
  });

  it("defaults and good values parse to numbers", () => {
    expect(parseFlags(DevFlagsSchema, { port: "8443" })).toMatchObject({
      port: 8443,
      readyDelayMs: 300,
      eventTtl: 3600,
    });
  });

  it("a host name that does not resolve names --listen", () => {
    const err = Object.assign(new Error("getaddrinfo ENOTFOUND nosuch.invalid"), { code: "ENOTFOUND" });
    expect(explainStartError(err, { listen: "nosuch.invalid", port: 0 }).message).toBe(
      "--listen nosuch.invalid: no such host: expected an address or host name of this machine (127.0.0.1, or 0.0.0.0 for every interface)",
    );
  });
});
