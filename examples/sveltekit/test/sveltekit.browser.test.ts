import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { DEMO_ACCOUNT } from 'example-shared/appConfig'
import { launchChromium } from 'example-shared/browserScenario'
import { runBuild } from 'example-shared/runBuild'
import { startDemoSimulators } from 'example-shared/demoSimulators'
import { afterAll, beforeAll, expect, it } from 'vitest'

// The SvelteKit example, built with `vite build` (adapter-node) and served by its Node server: the
// server render opens no socket and sends no search; the hydrated page streams, shows the quote and
// searches.

const root = fileURLToPath(new URL('..', import.meta.url))
const vite = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url))
let server: ChildProcess
let url = ''
let sims: Awaited<ReturnType<typeof startDemoSimulators>>

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

beforeAll(async () => {
  const build = await runBuild(process.execPath, [vite, 'build', '--logLevel', 'error'], { cwd: root })
  if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`)
  sims = await startDemoSimulators()
  const port = await freePort()
  // The server renders with the simulators' URLs: anything it connected or searched would reach them.
  server = spawn(process.execPath, ['build/index.js'], { cwd: root, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SIM_QUERY: sims.query }, stdio: ['ignore', 'pipe', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (/Listening/i.test(out)) resolve()
    })
    server.once('exit', (code) => reject(new Error(`the SvelteKit server exited with ${code}: ${out}`)))
  })
  url = `http://127.0.0.1:${port}`
})
afterAll(async () => {
  server?.kill()
  await sims?.close()
})

it('server HTML opens no socket and sends no search; the hydrated page streams, shows the quote and searches', async () => {
  const html = await (await fetch(`${url}/`)).text()
  expect(html).toContain('solver notifications on SvelteKit')
  expect(html).toContain('history pending')
  expect(sims.rasa.connections()).toHaveLength(0)
  expect(sims.rasa.httpRequests()).toHaveLength(0)

  const browser = await launchChromium()
  try {
    const tab = await browser.newPage()
    await tab.goto(`${url}/`)
    await tab.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    await tab.getByTestId('search').filter({ hasText: /history \d+ rows/ }).waitFor()
    await sims.rasa.waitForSubscribers(DEMO_ACCOUNT)
    const opened = await sims.rasa.instantOpen(DEMO_ACCOUNT)
    await tab.getByTestId('last').filter({ hasText: `quote ${opened.quoteId} success` }).waitFor()
    await tab.getByTestId('quotes').filter({ hasText: '1 quotes' }).waitFor()
    expect(sims.rasa.connections().filter((c) => c.open)).toHaveLength(1)
    expect(sims.rasa.httpRequests().length).toBeGreaterThan(0)
  } finally {
    await browser.close()
  }
})
