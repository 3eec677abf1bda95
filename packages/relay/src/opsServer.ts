import { type Server, createServer } from 'node:http'
import type { Registry } from 'prom-client'
import { RelayError } from './RelayError.js'

/**
 * Whether a relay should get traffic: every check, and the first one failing as `reason`.
 *
 * @example
 * const { ready, reason } = await relay.ready()
 */
export interface Readiness {
  ready: boolean
  /** why not, for a person reading `/readyz` (undefined when ready) */
  reason?: string | undefined
  checks: { nats: boolean; storage: boolean; joined: boolean; draining: boolean }
}

/** The default of `--http` given without an address: Prometheus exporters' loopback convention. */
export const DEFAULT_HTTP = '127.0.0.1:9464'

/** `host:port` (or `:port`, `port`) → where to listen; an out-of-range port is bad input. */
export function parseHttpAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(value.trim())
  const port = match ? Number(match[2]) : Number.NaN
  if (!match || !(port >= 0 && port <= 65_535)) {
    throw new RelayError('INVALID_PARAMETERS', `--http must be host:port (e.g. ${DEFAULT_HTTP}, or 0.0.0.0:9464 to be scraped from other hosts), got ${JSON.stringify(value)}`)
  }
  const host = match[1] ? match[1].replace(/^\[|\]$/g, '') : '0.0.0.0'
  return { host, port }
}

/**
 * The operator's endpoints: `GET /healthz` (200 while the process serves), `GET /readyz` (200 when
 * ready, else 503 with the JSON reason) and `GET /metrics` (Prometheus text).
 */
export async function startOpsServer(address: string, relay: { ready(): Promise<Readiness>; registry: Registry; instanceId: string }): Promise<{ address: string; close(): Promise<void> }> {
  const { host, port } = parseHttpAddress(address)
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
      res.end(body)
    }
    const json = (status: number, body: unknown) => send(status, 'application/json', `${JSON.stringify(body)}\n`)
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'only GET' })
    if (path === '/healthz') return json(200, { status: 'ok', instance: relay.instanceId })
    if (path === '/readyz') {
      relay.ready().then(
        (r) => json(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', instance: relay.instanceId, reason: r.reason, checks: r.checks }),
        (error: unknown) => json(503, { status: 'not ready', instance: relay.instanceId, reason: String(error) }),
      )
      return
    }
    if (path === '/metrics') {
      relay.registry.metrics().then(
        (text) => send(200, relay.registry.contentType, text),
        (error: unknown) => send(500, 'text/plain', String(error)),
      )
      return
    }
    json(404, { error: 'not found', endpoints: ['/healthz', '/readyz', '/metrics'] })
  })
  // Probes and scrapes are short requests: a connection idle this long is closed.
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new RelayError('INVALID_PARAMETERS', `--http ${address}: cannot listen (${error.code ?? error.message}); pick a free port or another address.`, { cause: error })),
    )
    server.listen(port, host, () => resolve())
  })
  const bound = server.address() as { address: string; port: number }
  const shownHost = bound.address.includes(':') ? `[${bound.address}]` : bound.address
  return {
    address: `${shownHost}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
