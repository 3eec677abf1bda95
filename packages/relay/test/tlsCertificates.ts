import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A throwaway CA, a server certificate for 127.0.0.1 signed by it, and a client certificate, made
 * with the machine's `openssl` for the TLS tests. Paths of PEM files.
 */
export function makeCertificates(): { dir: string; ca: string; caKey: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string } {
  const dir = mkdtempSync(join(tmpdir(), 'relay-tls-'))
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=relay-test-ca', '-keyout', file('ca-key.pem'), '-out', file('ca.pem'))
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n')
  writeFileSync(file('client.ext'), 'extendedKeyUsage=clientAuth\n')
  for (const who of ['server', 'client']) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=relay-test-${who}`, '-keyout', file(`${who}-key.pem`), '-out', file(`${who}.csr`))
    openssl('x509', '-req', '-in', file(`${who}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca-key.pem'), '-CAcreateserial', '-days', '2', '-extfile', file(`${who}.ext`), '-out', file(`${who}.pem`))
  }
  return { dir, ca: file('ca.pem'), caKey: file('ca-key.pem'), serverCert: file('server.pem'), serverKey: file('server-key.pem'), clientCert: file('client.pem'), clientKey: file('client-key.pem') }
}
