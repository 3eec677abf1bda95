import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import { MAX_BODY_BYTES, type SimAnswer, type SimSocket, SimulatorCore } from './SimulatorCore.js'
import type { SolverSimulator, SolverSimulatorOptions } from './SolverSimulator.js'

export type { SolverSimulator, SolverSimulatorOptions } from './SolverSimulator.js'

/**
 * Starts a real solver simulator (WebSocket + HTTP on one loopback port) speaking one protocol.
 *
 * @example
 * const sim = await startSolverSimulator({ protocol: 'enigma' })
 * const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } } })
 */
export async function startSolverSimulator(options: SolverSimulatorOptions): Promise<SolverSimulator> {
  const core = new SimulatorCore(options)
  const host = options.host ?? '127.0.0.1'
  const sockets = new Set<WebSocket>()

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }))
    })
  })
  const wss = new WebSocketServer({ noServer: true, autoPong: false, maxPayload: MAX_BODY_BYTES })

  server.on('upgrade', (req, socket, head) => {
    // Node takes its own error listener off an upgrading socket; a client that resets it (as browsers and `ws` do
    // when they abort after a refusal) would otherwise raise an uncaught ECONNRESET in the user's test run.
    socket.on('error', () => socket.destroy())
    const verdict = core.upgrade(req.url ?? '/', req.headers)
    if ('refuse' in verdict) {
      const text = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' }[verdict.refuse]
      socket.end(`HTTP/1.1 ${verdict.refuse} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      const connection = core.accept(nodeSocket(ws), verdict.path, verdict.token)
      ws.on('ping', (data) => {
        if (connection.answersPings()) ws.pong(data)
      })
      ws.on('message', (data, isBinary) => connection.message(isBinary ? '' : data.toString()))
      ws.on('close', (code) => {
        sockets.delete(ws)
        connection.closed(code)
      })
      ws.on('error', () => {
        /* a client that vanished mid-frame; close follows */
      })
    })
  })

  /** Reads the body (at most 1 MiB), lets the core answer, and writes what it answered. */
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > MAX_BODY_BYTES) {
        tooLarge = true
        break
      }
      chunks.push(chunk as Buffer)
    }
    const answer: SimAnswer = await core.http({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge })
    if ('destroy' in answer) {
      req.socket.destroy()
      return
    }
    if (!answer.trickleMs) {
      res.writeHead(answer.status, answer.headers).end(answer.body)
      return
    }
    res.writeHead(answer.status, answer.headers)
    res.flushHeaders()
    core.faults.trickle(
      answer.body,
      answer.trickleMs,
      (piece) => res.write(piece),
      () => res.end(),
      () => res.destroyed,
    )
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const hostText = host.includes(':') ? `[${host}]` : host
  const httpUrl = `http://${hostText}:${port}`

  return {
    ...core.behaviour(),
    wsUrl: `ws://${hostText}:${port}${core.module.wsPath}`,
    httpUrl,
    searchUrl: `${httpUrl}/notification`,
    async close() {
      await core.close()
      for (const ws of sockets) ws.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A `ws` socket as the core drives it; frames published in one tick leave in one write. */
function nodeSocket(ws: WebSocket): SimSocket {
  let corked = false
  const closed = () =>
    new Promise<void>((resolve) => {
      if (ws.readyState === ws.CLOSED) resolve()
      else ws.once('close', () => resolve())
    })
  return {
    send(text) {
      if (ws.readyState !== ws.OPEN) return Promise.resolve()
      // Without corking every frame is its own writev syscall, which capped publishing near 90,000 frames/s to one socket.
      const socket = (ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket
      if (socket && !corked) {
        corked = true
        socket.cork()
        process.nextTick(() => {
          corked = false
          socket.uncork()
        })
      }
      return new Promise((resolve) => ws.send(text, () => resolve()))
    },
    close(code, reason) {
      const done = closed()
      ws.close(code, reason)
      return done
    },
    terminate() {
      const done = closed()
      ws.terminate()
      return done
    },
  }
}
