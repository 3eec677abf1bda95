import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt'
import { createAccount, createOperator, createUser } from '@nats-io/nkeys'

/**
 * A decentralized-auth setup made in the test: an operator, one account with JetStream, and a user of
 * it. Returns the nats-server config file (operator mode, memory resolver) and the user's `.creds` file,
 * as `nsc` would write them.
 */
export async function makeCredentials(): Promise<{ serverConfig: string; creds: string; otherCreds: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-creds-'))
  const operator = createOperator()
  const system = createAccount()
  const account = createAccount()
  const user = createUser()
  const stranger = createUser()
  const operatorJwt = await encodeOperator('relay-test', operator, { system_account: system.getPublicKey() })
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator })
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 }
  const accountJwt = await encodeAccount('RELAY', account, { limits: unlimited } as never, { signer: operator })
  const userJwt = await encodeUser('relay', user, account)
  // Signed by an account the server does not know: refused.
  const strangerJwt = await encodeUser('stranger', stranger, createAccount())
  const serverConfig = join(dir, 'server.conf')
  writeFileSync(
    serverConfig,
    `operator: ${operatorJwt}\nsystem_account: ${system.getPublicKey()}\nresolver: MEMORY\nresolver_preload: {\n  ${system.getPublicKey()}: ${systemJwt}\n  ${account.getPublicKey()}: ${accountJwt}\n}\n`,
  )
  const creds = join(dir, 'relay.creds')
  writeFileSync(creds, fmtCreds(userJwt, user))
  const otherCreds = join(dir, 'stranger.creds')
  writeFileSync(otherCreds, fmtCreds(strangerJwt, stranger))
  return { serverConfig, creds, otherCreds }
}
