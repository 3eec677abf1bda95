import { startSolverSimulator } from '@solver-notifications/testkit'
import { afterAll, describe, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { makeCertificates } from '../test/tlsCertificates.js'
import { makeCredentials } from '../test/credsFile.js'
import { accountKey } from './accountKeys.js'
import { addAccounts, listAccounts } from './accountsAdmin.js'
import { startRelay } from './startRelay.js'

const KEY = accountKey(1, 'beta', '0xabc0000000000000000000000000000000000001')
const SECRET = 'S3cret-t0ken'
const servers: Array<{ close(): Promise<void> }> = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})
const start = async (args: string[]) => {
  const nats = await startNats(args)
  servers.push(nats)
  return nats
}

/** What a caller sees of a rejection, all of it: code, message and cause, as Node would print them. */
const shown = async (promise: Promise<unknown>) => {
  const error = (await promise.then(() => undefined, (e: unknown) => e)) as Error & { code?: string; cause?: unknown }
  return { code: error?.code, text: `${error?.message}\n${String(error?.cause)}\n${JSON.stringify(error?.cause ?? null)}` }
}

describe.skipIf(!natsAvailable)('NATS that requires credentials or TLS', () => {
  it('a token: the right one works, a wrong or missing one is NATS_AUTH and the token is never printed', async () => {
    const nats = await start(['--auth', SECRET])
    await addAccounts({ servers: nats.url, token: SECRET }, [KEY])
    expect(await listAccounts({ servers: nats.url, token: SECRET })).toEqual([KEY])
    const wrong = await shown(listAccounts({ servers: nats.url, token: 'not-it' }))
    expect(wrong.code).toBe('NATS_AUTH')
    expect(wrong.text).toMatch(/--nats-token/)
    expect(wrong.text).not.toContain('not-it')
    expect((await shown(listAccounts({ servers: nats.url }))).code).toBe('NATS_AUTH')
    // In the URL too: nats://token@host is redacted.
    const inUrl = await shown(listAccounts({ servers: `nats://wrong${SECRET}@127.0.0.1:${nats.port}` }))
    expect(inUrl.code).toBe('NATS_AUTH')
    expect(inUrl.text).not.toContain(SECRET)
  })

  it('a user and password: a relay starts and relays; a wrong password is NATS_AUTH and never printed', async () => {
    const nats = await start(['--user', 'relay', '--pass', SECRET])
    const sim = await startSolverSimulator({ protocol: 'rasa' })
    const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
    const target = { servers: nats.url, user: 'relay', password: SECRET }
    const relay = await startRelay({ config, nats: target, leaseTtlMs: 1_500, partitions: 16, instanceId: 'creds' })
    await addAccounts(target, [KEY])
    while (!relay.owned().includes(KEY)) await new Promise((r) => setTimeout(r, 25))
    await sim.waitForSubscribers('0xabc0000000000000000000000000000000000001')
    await sim.instantOpen('0xabc0000000000000000000000000000000000001')
    while (relay.stats().published < 3) await new Promise((r) => setTimeout(r, 25))
    expect(relay.stats()).toMatchObject({ published: 3, errors: 0 })
    await relay.close()
    await sim.close()
    const wrong = await shown(startRelay({ config, nats: { ...target, password: 'WrongPass' } }))
    expect(wrong.code).toBe('NATS_AUTH')
    expect(wrong.text).not.toContain('WrongPass')
  })

  it('TLS: with the CA it connects (and with a client certificate where the server verifies clients); without it, a message naming --tls-ca', async () => {
    const certs = makeCertificates()
    const nats = await start(['--tls', '--tlscert', certs.serverCert, '--tlskey', certs.serverKey])
    await addAccounts({ servers: nats.url, tls: { ca: certs.ca } }, [KEY])
    expect(await listAccounts({ servers: `tls://127.0.0.1:${nats.port}`, tls: { ca: certs.ca } })).toEqual([KEY])
    const untrusted = await shown(listAccounts({ servers: nats.url }))
    expect(untrusted.code).toBe('NATS_UNREACHABLE')
    expect(untrusted.text).toMatch(/--tls-ca/)

    const verifying = await start(['--tlsverify', '--tlscert', certs.serverCert, '--tlskey', certs.serverKey, '--tlscacert', certs.ca])
    const mutual = { servers: verifying.url, tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey } }
    await addAccounts(mutual, [KEY])
    expect(await listAccounts(mutual)).toEqual([KEY])
    expect((await shown(listAccounts({ servers: verifying.url, tls: { ca: certs.ca } }))).code).toMatch(/NATS_UNREACHABLE|NATS_AUTH/)
  })

  it('a creds file (operator mode, a user JWT and its seed): JetStream works; a user of an unknown account is NATS_AUTH', async () => {
    const setup = await makeCredentials()
    const nats = await start(['-c', setup.serverConfig])
    await addAccounts({ servers: nats.url, creds: setup.creds }, [KEY])
    expect(await listAccounts({ servers: nats.url, creds: setup.creds })).toEqual([KEY])
    expect((await shown(listAccounts({ servers: nats.url, creds: setup.otherCreds }))).code).toBe('NATS_AUTH')
    expect((await shown(listAccounts({ servers: nats.url }))).code).toBe('NATS_AUTH')
  })

  it('bad combinations and unreadable files are INVALID_PARAMETERS before anything connects', async () => {
    const servers = 'nats://127.0.0.1:1'
    await expect(listAccounts({ servers, user: 'relay' })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: /--nats-password/ })
    await expect(listAccounts({ servers, token: 't', user: 'u', password: 'p' })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: /one way to authenticate/ })
    await expect(listAccounts({ servers, creds: '/nonexistent/relay.creds' })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: /--nats-creds \/nonexistent\/relay\.creds cannot be read \(ENOENT\)/ })
    await expect(listAccounts({ servers, tls: { cert: '/x.pem' } })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: /--tls-key/ })
    await expect(listAccounts({ servers, tls: { ca: '/nonexistent/ca.pem' } })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: /--tls-ca/ })
  })
})
