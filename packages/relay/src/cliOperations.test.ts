import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { type SolverSimulator, spawnRelay, startSolvers, until } from '../test/cluster.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
const cwd = fileURLToPath(new URL('..', import.meta.url))
const TOKEN = 'T0ken-never-printed'
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--conditions=@solver-notifications/source', '--import', 'tsx', cli, ...args], { encoding: 'utf8', cwd, env: { ...process.env, NATS_URL: '', ...env } })

let nats: Awaited<ReturnType<typeof startNats>>
let solvers: Awaited<ReturnType<typeof startSolvers>>
beforeAll(async () => {
  if (!natsAvailable) return
  ;[nats, solvers] = await Promise.all([startNats(['--auth', TOKEN]), startSolvers()])
})
afterAll(async () => {
  if (!natsAvailable) return
  await solvers.close()
  await nats.close()
})

/** The JSON lines a relay process wrote to stdout, parsed (a line that is not JSON fails the test). */
const jsonLines = (output: string[]) =>
  output
    .join('')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { time: string; level: string; instance: string; msg: string } & Record<string, unknown>)

describe.skipIf(!natsAvailable)('the CLI as an operator runs it', () => {
  it('check: 0 with what it verified or created; 2 for bad input; 1 for a NATS that refuses or does not answer', () => {
    const ok = run(['check', '--config', solvers.file, '--nats', nats.url, '--nats-token', TOKEN])
    expect(ok.status).toBe(0)
    expect(ok.stdout).toMatch(/config: ok \(2 solver\(s\): 1\.alpha, 1\.beta\)/)
    expect(ok.stdout).toMatch(/stream SOLVER_NOTIFICATIONS: created, captures solver\.notifications\.>/)
    expect(run(['check', '--config', solvers.file, '--nats', nats.url, '--nats-token', TOKEN]).stdout).toMatch(/stream SOLVER_NOTIFICATIONS: exists/)
    const badConfig = join(mkdtempSync(join(tmpdir(), 'relay-check-')), 'bad.json')
    writeFileSync(badConfig, JSON.stringify({ chains: {} }))
    expect(run(['check', '--config', badConfig, '--nats', nats.url, '--nats-token', TOKEN])).toMatchObject({ status: 2, stderr: expect.stringContaining('INVALID_CONFIG') })
    const refused = run(['check', '--config', solvers.file, '--nats', nats.url, '--nats-token', 'wrong-one'])
    expect(refused).toMatchObject({ status: 1, stderr: expect.stringContaining('NATS_AUTH') })
    expect(refused.stderr).not.toContain('wrong-one')
    expect(run(['check', '--config', solvers.file, '--nats', 'nats://127.0.0.1:1'])).toMatchObject({ status: 1, stderr: expect.stringContaining('NATS_UNREACHABLE') })
  })

  it('every option also comes from SOLVER_RELAY_<OPTION>; a flag wins over its variable', () => {
    const env = { SOLVER_RELAY_NATS: nats.url, SOLVER_RELAY_NATS_TOKEN: TOKEN }
    expect(run(['accounts', 'add', accountKey(1, 'beta', '0xabc00000000000000000000000000000000000e1')], env)).toMatchObject({ status: 0, stdout: 'added 1 account(s)\n' })
    expect(run(['accounts', 'list'], env).stdout).toContain(accountKey(1, 'beta', '0xabc00000000000000000000000000000000000e1'))
    // The flag's token wins over the variable's, so this one is refused.
    expect(run(['accounts', 'list', '--nats-token', 'flag-wins'], env)).toMatchObject({ status: 1, stderr: expect.stringContaining('NATS_AUTH') })
    expect(run(['--config', solvers.file], { ...env, SOLVER_RELAY_MAX_ACCOUNTS: 'many' })).toMatchObject({ status: 2, stderr: expect.stringContaining('--max-accounts must be a positive integer, got many') })
    expect(run(['--config', solvers.file, '--log-format', 'xml'], env)).toMatchObject({ status: 2, stderr: expect.stringContaining('--log-format must be json or pretty') })
  })

  it('logs one JSON object per line, drains on SIGTERM (not ready at once, accounts handed over) and exits 0; no secret printed', async () => {
    const relay = spawnRelay(solvers.file, nats.url, 'json-1', ['--lease-ttl-ms', '1500', '--partitions', '16', '--http', '127.0.0.1:0'], { SOLVER_RELAY_NATS_TOKEN: TOKEN })
    await until(() => jsonLines(relay.output).some((l) => l.msg === 'relay started'), 'the start line')
    const started = jsonLines(relay.output).find((l) => l.msg === 'relay started')!
    expect(started).toMatchObject({ level: 'info', instance: 'json-1', auth: 'token', stream: 'SOLVER_NOTIFICATIONS', solvers: ['1.alpha', '1.beta'], leaseTtlMs: 1500 })
    expect(Date.parse(started.time)).toBeGreaterThan(0)
    const http = started.http as string
    const keys = [accountKey(1, 'beta', '0xabc0000000000000000000000000000000000071'), accountKey(1, 'alpha', '0xabc0000000000000000000000000000000000072')]
    await addAccounts({ servers: nats.url, token: TOKEN }, keys)
    await until(() => jsonLines(relay.output).some((l) => l.msg === 'accounts moved' && (l.owned as number) >= keys.length + 1), 'the accounts to be taken')
    expect((await fetch(`http://${http}/readyz`)).status).toBe(200)
    relay.child.kill('SIGTERM')
    expect(await relay.exited).toBe(0)
    const lines = jsonLines(relay.output)
    const drain = lines.filter((l) => l.msg.startsWith('drain') || l.msg.startsWith('signal'))
    expect(drain.map((l) => l.msg)).toEqual(['signal received: draining', 'drain started: handing accounts over (checkpoints first)', 'drain finished'])
    expect(drain[2]).toMatchObject({ handedOver: keys.length + 1 })
    for (const l of lines) expect(Object.keys(l).slice(0, 3)).toEqual(['level', 'time', 'instance'])
    expect(relay.output.join('')).not.toContain(TOKEN)
  })

  it('a drain that cannot finish (NATS gone) ends at --shutdown-timeout-ms with exit 1; a second signal exits at once', async () => {
    const own = await startNats()
    const slow = spawnRelay(solvers.file, own.url, 'slow-1', ['--lease-ttl-ms', '1500', '--partitions', '16', '--shutdown-timeout-ms', '1000'])
    const impatient = spawnRelay(solvers.file, own.url, 'slow-2', ['--lease-ttl-ms', '1500', '--partitions', '16', '--shutdown-timeout-ms', '600000'])
    await addAccounts({ servers: own.url }, [accountKey(1, 'alpha', '0xabc0000000000000000000000000000000000081')])
    for (const r of [slow, impatient]) await until(() => jsonLines(r.output).some((l) => l.msg === 'relay started'), 'started')
    await until(() => [slow, impatient].some((r) => jsonLines(r.output).some((l) => l.msg === 'accounts moved')), 'the account to be taken')
    await own.stop()
    slow.child.kill('SIGTERM')
    impatient.child.kill('SIGTERM')
    await until(() => jsonLines(impatient.output).some((l) => l.msg === 'signal received: draining'), 'the drain to start')
    impatient.child.kill('SIGTERM')
    expect(await impatient.exited).toBe(1)
    expect(jsonLines(impatient.output).map((l) => l.msg)).toContain('second signal: exiting now, without finishing the handover (leases expire after the lease TTL; checkpoints stay behind)')
    expect(await slow.exited).toBe(1)
    expect(jsonLines(slow.output).find((l) => l.msg.startsWith('drain timed out'))).toMatchObject({ level: 'error', shutdownTimeoutMs: 1000 })
    await own.close()
  })
})

it.skipIf(!natsAvailable)('check creates nothing when the stream name is taken by other subjects (2, what to fix)', async () => {
  const nc = await connect({ servers: nats.url, token: TOKEN })
  await (await jetstreamManager(nc)).streams.add({ name: 'TAKEN', subjects: ['taken.>'] })
  await nc.close()
  expect(run(['check', '--config', solvers.file, '--nats', nats.url, '--nats-token', TOKEN, '--stream', 'TAKEN'])).toMatchObject({ status: 2, stderr: expect.stringContaining('STREAM_CONFLICT') })
})

export type { SolverSimulator }
