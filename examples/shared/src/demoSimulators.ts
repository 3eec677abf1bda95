import { createReadStream, existsSync, statSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join } from 'node:path'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'

/** A rasa and an enigma simulator for the example apps (fixed ports for the dev scripts, 0 for tests). */
export async function startDemoSimulators(ports: { rasa?: number; enigma?: number } = {}) {
  const rasa = await startSolverSimulator({ protocol: 'rasa', port: ports.rasa ?? 0 })
  const enigma = await startSolverSimulator({ protocol: 'enigma', port: ports.enigma ?? 0 })
  const query = new URLSearchParams({ rasaWs: rasa.wsUrl, rasaHttp: rasa.httpUrl, enigmaWs: enigma.wsUrl, enigmaSearch: enigma.searchUrl, enigmaChannel: enigma.channel })
  return { rasa, enigma, query: query.toString(), close: () => Promise.all([rasa.close(), enigma.close()]).then(() => undefined) }
}

/** The dev scripts' steady stream: a lifecycle every `everyMs` for the account, on both simulators. */
export function publishSteadily(sims: SolverSimulator[], account: string, everyMs = 1500): () => void {
  let round = 0
  const timer = setInterval(() => {
    for (const sim of sims) {
      const run = round % 4 === 3 ? sim.fail(account) : sim.instantOpen(account).then((r) => (round % 2 ? sim.closeRequest(r.quoteId) : undefined))
      run.catch((error: unknown) => console.error(error))
    }
    round++
  }, everyMs)
  return () => clearInterval(timer)
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' }

/** Serves a built example on loopback for the browser tests. */
export async function serveDir(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    let file = join(dir, path)
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) file = join(dir, 'index.html')
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

/** What every example's dev script does: simulators on the app's default ports, a steady stream, then Vite. */
export async function runExampleDev(viteConfigFile: string, account: string): Promise<void> {
  const { createServer } = await import('vite')
  const sims = await startDemoSimulators({ rasa: 8787, enigma: 8788 })
  const stop = publishSteadily([sims.rasa, sims.enigma], account)
  const server = await createServer({ configFile: viteConfigFile })
  await server.listen()
  server.printUrls()
  process.once('SIGINT', async () => {
    stop()
    await server.close()
    await sims.close()
    process.exit(0)
  })
}
