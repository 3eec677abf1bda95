import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { connectTestClient } from './testClient.js'

const A = '0xAaAa000000000000000000000000000000000001'
// tsx is resolved from the package folder
const cwd = fileURLToPath(new URL('..', import.meta.url))

it('solver-sim prints its URLs, streams lifecycles and stops cleanly on SIGINT', async () => {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--protocol', 'rasa', '--port', '0', '--accounts', A, '--rate', '50'], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  let wsUrl = ''
  for await (const line of lines) {
    const match = /wsUrl:\s+(\S+)/.exec(line)
    if (match) wsUrl = match[1]!
    if (line.includes('publishing')) break
  }
  expect(wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\/position-state-ws3$/)
  const client = await connectTestClient(wsUrl)
  client.send({ address: [A] })
  const frames = (await client.waitFor(3)).map((f) => JSON.parse(f))
  expect(frames.every((f) => f.counterparty_address === A)).toBe(true)
  child.kill('SIGINT')
  const [code] = await once(child, 'exit')
  expect(code).toBe(0)
  await client.closed
}, 20_000)

it('solver-sim rejects a bad protocol with exit code 2', async () => {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--protocol', 'nope'], { cwd, stdio: 'ignore' })
  const [code] = await once(child, 'exit')
  expect(code).toBe(2)
})

it('accepts the `--` that `pnpm sim -- --protocol …` passes through', async () => {
  const { spawnSync } = await import('node:child_process')
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const out = spawnSync(process.execPath, ['--import', 'tsx', cli, '--', '--protocol', 'nope'], { cwd, encoding: 'utf8' })
  expect(out.status).toBe(2)
  expect(out.stderr).toContain('--protocol must be enigma or rasa')
  expect(out.stderr).not.toContain('ERR_PARSE_ARGS')
})

it('--help prints every option with its default on stdout and exits 0', async () => {
  const { spawnSync } = await import('node:child_process')
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const out = spawnSync(process.execPath, ['--import', 'tsx', cli, '--help'], { cwd, encoding: 'utf8' })
  expect(out.status).toBe(0)
  for (const option of ['--protocol', '--port', '--accounts', '--rate', '--channel', '--help']) expect(out.stdout).toContain(option)
  for (const fallback of ['default 0', 'default none', 'default 5', 'default Simulator_Channel']) expect(out.stdout).toContain(fallback)
  expect(out.stdout).toContain('npx solver-sim')
})

it('without --accounts it says it publishes nothing and waits for subscribers', async () => {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--protocol', 'enigma', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: string[] = []
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line)
    if (line.includes('Ctrl-C')) break
  }
  child.kill('SIGINT')
  await once(child, 'exit')
  expect(lines.at(-1)).toContain('publishing nothing, waiting for subscribers')
}, 20_000)

it('the CLI clock never runs ahead of the wall clock: fast lifecycles share the current second', async () => {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--protocol', 'rasa', '--port', '0', '--accounts', A, '--rate', '100'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
  let wsUrl = ''
  for await (const line of createInterface({ input: child.stdout! })) {
    wsUrl = /wsUrl:\s+(\S+)/.exec(line)?.[1] ?? wsUrl
    if (line.includes('publishing')) break
  }
  const client = await connectTestClient(wsUrl)
  client.send({ address: [A] })
  // 100 lifecycles a second are 200+ frames a second: a clock that counts one second per frame runs minutes ahead.
  const frames = (await client.waitFor(300)).map((f) => JSON.parse(f) as { modify_time: number })
  const newest = Math.max(...frames.map((f) => f.modify_time))
  expect(newest).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
  child.kill('SIGINT')
  await once(child, 'exit')
  await client.closed
}, 30_000)
