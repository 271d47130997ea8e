import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createServingCert,
  servingCertFor,
  servingCertIn,
} from "../../../src/apiserver-shim/serving-cert.js";

describe("serving certificates", () => {
  it("signs a server certificate for loopback and the given hosts with a CA of its own", () => {
    const c = createServingCert(["192.0.2.7", "dev.example"]);
    const ca = new X509Certificate(c.caCert);
    const leaf = new X509Certificate(c.cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(leaf.checkIP("192.0.2.7")).toBe("192.0.2.7");
    expect(leaf.checkHost("localhost")).toBe("localhost");
    expect(leaf.checkHost("dev.example")).toBe("dev.example");
    expect(leaf.checkHost("other.example")).toBeUndefined();
    expect(leaf.checkPrivateKey(createPrivateKey(c.key))).toBe(true);
  });

  it("is made once per process and set of hosts", () => {
    expect(servingCertFor(["a.example", "b.example"])).toBe(servingCertFor(["b.example", "a.example"]));
    expect(servingCertFor([])).not.toBe(servingCertFor(["a.example"]));
  });

  it("survives a restart on the same data dir (found by the chaos harness: a restarted petset dev had a new CA, so a running controller's kubeconfig no longer verified it)", {
    timeout: 60_000,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "petset-cert-"));
    try {
      const first = servingCertIn(dir, []);
      expect(statSync(join(dir, "serving-cert.json")).mode & 0o777).toBe(0o600);
      expect(servingCertIn(dir, []).caCert).toBe(first.caCert);
      expect(servingCertIn(dir, ["dev.example"]).caCert).not.toBe(first.caCert);
      writeFileSync(join(dir, "serving-cert.json"), "{torn");
      expect(new X509Certificate(servingCertIn(dir, []).cert).checkHost("localhost")).toBe("localhost");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
