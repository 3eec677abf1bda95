import { type Server, type Socket, createConnection, createServer } from 'node:net'

/**
 * A TCP proxy in front of a nats-server, for tests that cut one relay off from NATS while the others keep
 * it: `cut('refuse')` closes its connections and refuses new ones (a server down for it), `cut('blackhole')`
 * keeps them open but passes nothing either way (a partition: requests never answer, nothing tells the
 * client), `heal()` lets traffic through again (black-holed connections resume where they stopped).
 */
export async function startNatsProxy(target: { port: number }): Promise<{ url: string; cut(mode: 'refuse' | 'blackhole'): void; heal(): void; close(): Promise<void> }> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>()
  let mode: 'open' | 'refuse' | 'blackhole' = 'open'
  const server: Server = createServer((client) => {
    if (mode === 'refuse') {
      client.destroy()
      return
    }
    const upstream = createConnection({ host: '127.0.0.1', port: target.port })
    const pair = { client, upstream }
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
    if (mode === 'blackhole') {
      client.pause()
      upstream.pause()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `nats://127.0.0.1:${port}`,
    cut(how) {
      mode = how
      for (const pair of [...pairs]) {
        if (how === 'refuse') {
          pair.client.destroy()
          pair.upstream.destroy()
        } else {
          // Paused and unpiped: nothing is read from either side, so nothing crosses until healed.
          pair.client.unpipe(pair.upstream)
          pair.upstream.unpipe(pair.client)
          pair.client.pause()
          pair.upstream.pause()
        }
      }
    },
    heal() {
      mode = 'open'
      for (const pair of pairs) {
        pair.client.pipe(pair.upstream)
        pair.upstream.pipe(pair.client)
        pair.client.resume()
        pair.upstream.resume()
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy()
        pair.upstream.destroy()
      }
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
