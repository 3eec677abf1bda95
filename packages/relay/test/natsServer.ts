import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A free loopback port (the OS picks; released before nats-server binds it). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A real `nats-server -js` on a free loopback port with its own store directory (`.ci/run` installs
 * Debian's nats-server). `restart()` stops it and starts it again on the same port and store.
 */
/**
 * Kills a child process when this one exits, whatever the reason (a benchmark that throws must not
 * leave a nats-server or relays running: CI found one that kept two cores busy for the next runs).
 */
export function killWithParent(child: ChildProcess): void {
  if (!listening) process.once('exit', killChildren)
  listening = true
  children.add(child)
  child.once('exit', () => children.delete(child))
}

const children = new Set<ChildProcess>()
let listening = false
function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

/** Starts `nats-server` with these arguments; resolves once it says it is ready (it is killed with this process). */
export async function spawnNatsServer(args: string[], name = 'nats-server'): Promise<ChildProcess> {
  const proc = spawn('nats-server', args, { stdio: ['ignore', 'ignore', 'pipe'] })
  killWithParent(proc)
  await new Promise<void>((resolve, reject) => {
    let text = ''
    proc.once('error', (error) => reject(new Error(`nats-server could not start (${error.message}); install it: apt-get install -y nats-server`)))
    proc.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      if (text.includes('Server is ready')) resolve()
    })
    proc.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${text.slice(-2_000)}`)))
  })
  return proc
}

/** Ends a child process with `signal` and waits for it (nothing when it already ended). */
export async function endProcess(proc: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve())
    proc.kill(signal)
  })
}

export async function startNats(extra: string[] = []): Promise<{ url: string; port: number; connections(): Promise<number>; restart(options?: { empty?: boolean; args?: string[] }): Promise<void>; stop(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort()
  const monitor = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'relay-nats-'))
  let child: ChildProcess | undefined
  let args = extra
  const start = async () => {
    child = await spawnNatsServer(['-js', '-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-sd', dir, ...args])
  }
  const stop = async () => {
    const proc = child
    child = undefined
    await endProcess(proc, 'SIGTERM')
  }
  await start()
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    /** clients connected now, from the server's monitoring endpoint */
    connections: async () => ((await (await fetch(`http://127.0.0.1:${monitor}/connz`)).json()) as { num_connections: number }).num_connections,
    /** `empty`: the store is wiped in between (a lost volume); `args`: start it with these instead (another password) */
    restart: async (options: { empty?: boolean; args?: string[] } = {}) => {
      await stop()
      if (options.args) args = options.args
      if (options.empty) {
        rmSync(dir, { recursive: true, force: true })
        mkdirSync(dir, { recursive: true })
      }
      await start()
    },
    stop,
    close: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Whether these tests can run here: nats-server on the PATH. On CI it must be (`.ci/run` installs it);
 * elsewhere the relay tests skip, and `npm test` says how to install it.
 */
export const natsAvailable = spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0 || Boolean(process.env.CI)
