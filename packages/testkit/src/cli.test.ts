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
