import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
// From the package directory, where `--import tsx` resolves, wherever the test runner was started.
const cwd = fileURLToPath(new URL('..', import.meta.url))
const run = (...args: string[]) => spawnSync(process.execPath, ['--conditions=@solver-notifications/source', '--import', 'tsx', cli, ...args], { encoding: 'utf8', cwd, env: { ...process.env, NATS_URL: '' } })

it('the CLI names what to fix and exits 2: no NATS, no config, a bad config file, a malformed key', () => {
  expect(run('--config', 'x.json')).toMatchObject({ status: 2, stderr: expect.stringContaining('pass --nats nats://host:4222 or set SOLVER_RELAY_NATS (or NATS_URL)') })
  expect(run('--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('--config solvers.json is required') })
  expect(run('--config', '/nonexistent/solvers.json', '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('INVALID_CONFIG: Cannot read --config /nonexistent/solvers.json') })
  expect(run('accounts', 'add', '1.beta.0xABC', '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('INVALID_ACCOUNT_KEY') })
  expect(run('--config', 'x.json', '--nats', 'nats://127.0.0.1:1', '--lease-ttl-ms', 'soon')).toMatchObject({ status: 2, stderr: expect.stringContaining('--lease-ttl-ms must be a positive integer') })
  expect(run('--config', 'x.json', '--nats', 'nats://127.0.0.1:1', '--header', 'App-Name')).toMatchObject({ status: 2, stderr: expect.stringContaining("--header must be 'Name: value'") })
})

it('never prints a NATS password or a token, whatever fails', () => {
  for (const args of [
    ['accounts', 'list', '--nats', 'nats://admin:S3CRET@127.0.0.1:1'],
    ['accounts', 'add', '1.beta.0xabc0000000000000000000000000000000000001', '--nats', 'nats://admin:S3CRET@127.0.0.1:1,nats://tok:S3CRET@127.0.0.1:2'],
  ]) {
    const out = run(...args)
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('nats://***@127.0.0.1:1')
    expect(`${out.stdout}${out.stderr}`).not.toContain('S3CRET')
  }
})

it('a config file over 1 MiB, or a host name over 253 characters, is refused with what to fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'relay-cli-'))
  const big = join(dir, 'big.json')
  writeFileSync(big, `{"pad":"${'x'.repeat(1024 * 1024)}"}`)
  expect(run('--config', big, '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringMatching(/INVALID_CONFIG: --config .*big\.json is \d+ bytes.*at most 1048576 bytes/) })
  const host = join(dir, 'host.json')
  const long = `${'a'.repeat(250)}.example`
  writeFileSync(host, JSON.stringify({ defaultChainId: 1, chains: { 1: { defaultSolver: 'b', solvers: { b: { url: `https://${long}`, notifications: { protocol: 'rasa', url: `wss://${long}/ws` } } } } } }))
  expect(run('--config', host, '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('a host name has at most 253') })
  rmSync(dir, { recursive: true, force: true })
})
