/**
 * Throwaway X.509 material for tests of TLS clients: a CA and a server certificate it signed for
 * the names given, made with the openssl CLI (node:crypto makes keys but cannot sign certificates).
 * EC P-256 keys, valid for a day, in a fresh directory the caller removes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface CertificateAuthority {
  /** PEM certificate of the CA: what a client's root-certificate setting points at. */
  readonly certPath: string;
  readonly keyPath: string;
}

export interface TestCertificates {
  readonly dir: string;
  /** A self-signed CA named `name`, its files in `dir`. */
  authority(name: string): CertificateAuthority;
  /** A server certificate and key signed by `ca`, valid for `dnsNames` and `ipAddresses` (subjectAltName). */
  server(name: string, ca: CertificateAuthority, altNames: { dnsNames?: string[]; ipAddresses?: string[] }): { certPath: string; keyPath: string };
  remove(): void;
}

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export function testCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-certs-"));
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    authority(name) {
      const ca = { certPath: file(`${name}.crt`), keyPath: file(`${name}.key`) };
      openssl(["req", "-x509", ...EC_KEY, "-keyout", ca.keyPath, "-out", ca.certPath, "-days", "1", "-subj", `/CN=${name}`]);
      return ca;
    },
    server(name, ca, { dnsNames = [], ipAddresses = [] }) {
      const out = { certPath: file(`${name}.crt`), keyPath: file(`${name}.key`) };
      const request = file(`${name}.csr`);
      const extensions = file(`${name}.ext`);
      writeFileSync(extensions, `subjectAltName=${[...dnsNames.map((n) => `DNS:${n}`), ...ipAddresses.map((a) => `IP:${a}`)].join(",")}\n`);
      openssl(["req", ...EC_KEY, "-keyout", out.keyPath, "-out", request, "-subj", `/CN=${name}`]);
      openssl(["x509", "-req", "-in", request, "-CA", ca.certPath, "-CAkey", ca.keyPath, "-CAcreateserial", "-out", out.certPath, "-days", "1", "-extfile", extensions]);
      return out;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
