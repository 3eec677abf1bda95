import { connect } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { type SolverSimulator, startSolverSimulator } from './startSolverSimulator.js'

let sim: SolverSimulator | undefined
afterEach(() => sim?.close())

/** Sends a raw upgrade request and returns the status line the simulator answers with; `reset` ends the connection with a TCP reset. */
function upgrade(wsUrl: string, reset: boolean): Promise<string> {
  const url = new URL(wsUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      )
    })
    socket.once('data', (data) => {
      const status = data.toString().split('\r\n')[0] ?? ''
      if (reset) socket.resetAndDestroy()
      else socket.destroy()
      resolve(status)
    })
    socket.once('error', reject)
  })
}

// A client that resets the connection after a refused upgrade (browsers and `ws` do when they abort) made the
// simulator's side of the socket raise ECONNRESET with no listener: an uncaught exception in the user's test run.
it('a client resetting the connection after a refused upgrade does not crash the process; the simulator keeps answering', async () => {
  sim = await startSolverSimulator({ protocol: 'enigma' })
  sim.refuseSockets()
  const statuses: string[] = []
  for (let i = 0; i < 5; i++) statuses.push(await upgrade(sim.wsUrl, true))
  statuses.push(await upgrade(sim.wsUrl, false))
  expect(statuses).toEqual(Array.from({ length: 6 }, () => 'HTTP/1.1 503 Service Unavailable'))
})
