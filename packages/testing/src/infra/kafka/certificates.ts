/**
 * Throwaway certificates for a secured test broker: a CA and a broker certificate it signs (SAN
 * IP 127.0.0.1, the address the broker advertises), made with the machine's openssl in a temp dir.
 * Valid one day; nothing here is ever deployed (a cluster's certificates are Strimzi's).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HOST } from './settings';

const openssl = (args: string[], cwd: string) => promisify(execFile)('openssl', args, { cwd, timeout: 60_000 });

export interface CertificateAuthority {
  /** PEM certificate, self-signed. */
  readonly certificate: string;
  /** Signs a server certificate for 127.0.0.1 with this CA. */
  issue(commonName: string): Promise<{ key: string; certificate: string }>;
  /** Deletes the CA's key and work files. */
  dispose(): Promise<void>;
}

/** A new CA: RSA 2048 (what every Java and Node TLS stack accepts), its key in a private temp dir. */
export async function createCertificateAuthority(name: string): Promise<CertificateAuthority> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tawsil-test-ca-'));
  const rsa = ['-newkey', 'rsa:2048', '-nodes'];
  await openssl(['req', '-x509', ...rsa, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=${name}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  const certificate = await readFile(path.join(dir, 'ca.pem'), 'utf8');
  let serial = 0;
  return {
    certificate,
    async issue(commonName) {
      const base = `server-${++serial}`;
      // A SAN, not the CN, is what TLS clients check the address against.
      await writeFile(path.join(dir, `${base}.ext`), `subjectAltName=IP:${HOST}\nextendedKeyUsage=serverAuth,clientAuth\n`);
      await openssl(['req', ...rsa, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`], dir);
      await openssl(['x509', '-req', '-in', `${base}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(serial + 1), '-days', '1', '-out', `${base}.pem`, '-extfile', `${base}.ext`], dir);
      const [key, cert] = await Promise.all([readFile(path.join(dir, `${base}.key`), 'utf8'), readFile(path.join(dir, `${base}.pem`), 'utf8')]);
      return { key, certificate: cert };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
