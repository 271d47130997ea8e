/**
 * The TLS identity of the embedded server: a certificate authority made by this process (its
 * key stays in memory, never on disk) and a serving certificate it signs for the names and
 * addresses the server answers on. The CA certificate goes into the kubeconfig
 * (`certificate-authority-data`), so kubectl and client-node verify the server. TLS is not
 * optional, even on loopback: kubectl (client-go's clientcmd) sends no credentials at all to
 * an `http://` server, so a token would be useless without it. Keys come from node:crypto;
 * node-forge builds and signs the X.509 certificates (node:crypto cannot).
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import forge from "node-forge";
import { z } from "zod";

export interface ServingCert {
  /** PEM of the CA that signed `cert`: what clients trust. */
  caCert: string;
  /** PEM of the serving certificate. */
  cert: string;
  /** PEM (PKCS#8) of the serving certificate's private key. */
  key: string;
}

const DAY_MS = 86_400_000;

function rsaKeyPair(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

function serial(): string {
  // Positive (leading nibble < 8) 128-bit serial, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString("hex");
}

const issued = new Map<string, ServingCert>();

/**
 * The serving certificate of this process for `hosts`: made once per set of hosts, then
 * reused by later servers of the same process (tests start many; RSA keys take a while).
 */
export function servingCertFor(hosts: readonly string[]): ServingCert {
  const key = [...new Set(hosts)].sort().join(",");
  let cert = issued.get(key);
  if (!cert) {
    cert = createServingCert(hosts);
    issued.set(key, cert);
  }
  return cert;
}

const StoredCertSchema = z.object({
  hosts: z.string(),
  caCert: z.string(),
  cert: z.string(),
  key: z.string(),
});

/**
 * The serving certificate kept in a data dir (`--data-dir`): a server restarted on the same
 * data dir keeps its TLS identity, so the kubeconfigs its clients already loaded (a running
 * controller, kubectl) still verify it. Stored as `serving-cert.json` (mode 0600: it holds the
 * serving key; the CA key is still never written). Made anew when the hosts changed or the
 * file cannot be read.
 */
export function servingCertIn(dataDir: string, hosts: readonly string[]): ServingCert {
  const key = [...new Set(hosts)].sort().join(",");
  const file = join(dataDir, "serving-cert.json");
  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      raw = undefined;
    }
    const stored = StoredCertSchema.safeParse(raw);
    if (stored.success && stored.data.hosts === key) {
      const { caCert, cert, key: pem } = stored.data;
      return { caCert, cert, key: pem };
    }
  }
  const made = servingCertFor(hosts);
  mkdirSync(dataDir, { recursive: true });
  // Whole or not at all: several servers may share a cert dir (the tests' workers do).
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ hosts: key, ...made }), { mode: 0o600 });
  renameSync(tmp, file);
  return made;
}

/**
 * A CA and a serving certificate for `hosts` (DNS names and IP addresses; `localhost`,
 * `127.0.0.1` and `::1` are always included), valid from an hour ago for `days` days.
 */
export function createServingCert(hosts: readonly string[], days = 365): ServingCert {
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + days * DAY_MS);

  const caKeys = rsaKeyPair();
  const caKey = forge.pki.privateKeyFromPem(caKeys.privatePem);
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(caKeys.publicPem);
  ca.serialNumber = serial();
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caName = [{ name: "commonName", value: `petset-dev-ca-${Math.floor(Date.now() / 1000)}` }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKey, forge.md.sha256.create());

  const leafKeys = rsaKeyPair();
  const leaf = forge.pki.createCertificate();
  leaf.publicKey = forge.pki.publicKeyFromPem(leafKeys.publicPem);
  leaf.serialNumber = serial();
  leaf.validity.notBefore = notBefore;
  leaf.validity.notAfter = notAfter;
  leaf.setSubject([{ name: "commonName", value: "petset-dev" }]);
  leaf.setIssuer(caName);
  const names = [...new Set(["localhost", "127.0.0.1", "::1", ...hosts])];
  leaf.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(caKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(ca),
    cert: forge.pki.certificateToPem(leaf),
    key: leafKeys.privatePem,
  };
}
