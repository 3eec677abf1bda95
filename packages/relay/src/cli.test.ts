import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
// From the package directory, where `--import tsx` resolves, wherever the test runner was started.
const cwd = fileURLToPath(new URL('..', import.meta.url))
const run = (...args: string[]) => spawnSync(process.execPath, ['--conditions=@solver-notifications/source', '--import', 'tsx', cli, ...args], { encoding: 'utf8', cwd, env: { ...process.env, NATS_URL: '' } })

it('the CLI names what to fix and exits 2: no NATS, no config, a bad config file, a malformed key', () => {
  expect(run('--config', 'x.json')).toMatchObject({ status: 2, stderr: expect.stringContaining('pass --nats nats://host:4222 or set NATS_URL') })
  expect(run('--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('--config solvers.json is required') })
  expect(run('--config', '/nonexistent/solvers.json', '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('INVALID_CONFIG: Cannot read --config /nonexistent/solvers.json') })
  expect(run('accounts', 'add', '1.beta.0xABC', '--nats', 'nats://127.0.0.1:1')).toMatchObject({ status: 2, stderr: expect.stringContaining('INVALID_ACCOUNT_KEY') })
  expect(run('--config', 'x.json', '--nats', 'nats://127.0.0.1:1', '--lease-ttl-ms', 'soon')).toMatchObject({ status: 2, stderr: expect.stringContaining('--lease-ttl-ms must be a positive integer') })
})
