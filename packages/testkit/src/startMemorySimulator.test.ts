import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type MemorySimulator, MemoryWebSocket, memoryFetch, startMemorySimulator } from './memory.js'

const account = '0xabc0000000000000000000000000000000000001'
let sims: MemorySimulator[] = []
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()))
  sims = []
})
const start = async (options: Parameters<typeof startMemorySimulator>[0]) => {
  const sim = await startMemorySimulator(options)
  sims.push(sim)
  return sim
}

/** Every event of a socket, in order, and a promise for the next one of a type. */
function watch(ws: MemoryWebSocket) {
  const events: string[] = []
  const waiters: Array<{ type: string; resolve: (e: Record<string, unknown>) => void }> = []
  for (const type of ['open', 'message', 'close', 'error'] as const) {
    ws.addEventListener(type, ((e: Record<string, unknown>) => {
      events.push(type === 'message' ? `message ${e.data}` : type === 'close' ? `close ${e.code}` : type)
      for (const w of waiters.filter((w) => w.type === type)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(e)
      }
    }) as never)
  }
  return { events, next: (type: string) => new Promise<Record<string, unknown>>((resolve) => waiters.push({ type, resolve })) }
}

describe('MemoryWebSocket', () => {
  it("never makes the simulator wait for the client's clock: publish and dropAll settle under fake timers before the clock moves (Jest's defaults)", async () => {
    const sim = await start({ protocol: 'enigma' })
    const ws = new MemoryWebSocket(sim.wsUrl)
    const seen = watch(ws)
    await seen.next('open')
    ws.send(JSON.stringify({ channel_patterns: [{ app_name: sim.channel, address: account, primary_identifier: '*', secondary_identifier: '*' }] }))
    await sim.waitForSubscribers(account)
    vi.useFakeTimers()
    try {
      // Awaited before the clock is advanced: it used to wait for the client's (faked) timer for ever.
      await sim.publish({ quote_id: 3, counterparty_address: account })
      await sim.dropAll(4001)
      expect(seen.events).toEqual(['open'])
      await vi.advanceTimersByTimeAsync(10)
      expect(seen.events).toEqual(['open', expect.stringMatching(/^message .*"quote_id":3/), 'close 4001'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('opens asynchronously, subscribes, gets published frames in order, and a server close reaches it with its code', async () => {
    const sim = await start({ protocol: 'rasa' })
    const ws = new MemoryWebSocket(sim.wsUrl)
    const seen = watch(ws)
    expect(ws.readyState).toBe(0)
    expect(() => ws.send('x')).toThrow(/before the socket opened/)
    await seen.next('open')
    ws.send(JSON.stringify({ address: [account] }))
    await sim.waitForSubscribers(account)
    await sim.publish({ quote_id: 1, counterparty_address: account })
    await sim.publish({ quote_id: 2, counterparty_address: account })
    // The simulator's promises settle once a step is on the way (as over TCP), not once the client saw it.
    const closed = seen.next('close')
    await sim.dropAll(4000)
    await closed
    expect(seen.events).toEqual(['open', expect.stringMatching(/^message .*"quote_id":1/), expect.stringMatching(/^message .*"quote_id":2/), 'close 4000'])
    expect(ws.readyState).toBe(3)
    expect(sim.connections()).toEqual([])
  })

  it('a close from the client reaches the simulator with its code', async () => {
    const sim = await start({ protocol: 'enigma' })
    const ws = new MemoryWebSocket(sim.wsUrl)
    const seen = watch(ws)
    await seen.next('open')
    expect(sim.connections()).toHaveLength(1)
    ws.close(3001, 'bye')
    await seen.next('close')
    expect(sim.connections()).toEqual([])
    expect(seen.events).toEqual(['open', 'close 3001'])
  })

  it('an unknown host, a refusing simulator and a missing token fail like a refused upgrade: error, then close 1006, never open', async () => {
    const sim = await start({ protocol: 'rasa', auth: { token: 't1' } })
    const urls = ['wss://sim-999999.memory.test/ws', sim.wsUrl, `${sim.wsUrl}?token=wrong`]
    for (const url of urls) {
      const seen = watch(new MemoryWebSocket(url))
      await seen.next('close')
      expect(seen.events).toEqual(['error', 'close 1006'])
    }
    const ok = watch(new MemoryWebSocket(`${sim.wsUrl}?token=t1`))
    await ok.next('open')
    sim.refuseSockets(true)
    const refused = watch(new MemoryWebSocket(`${sim.wsUrl}?token=t1`))
    await refused.next('close')
    expect(refused.events).toEqual(['error', 'close 1006'])
    // rotating the token closes the sockets dialed with the old one with 4001
    const rotated = ok.next('close')
    await sim.rotateToken('t2')
    await rotated
    expect(ok.events).toEqual(['open', 'close 4001'])
  })
})

describe('memoryFetch', () => {
  it('answers history, CORS preflights, and faults (status with Retry-After, destroy, trickle)', async () => {
    const sim = await start({ protocol: 'rasa' })
    await sim.publish({ quote_id: 7, counterparty_address: account, modify_time: 10 })
    const read = await memoryFetch(`${sim.httpUrl}/position-state/0/10`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ counterparty_address: account }) })
    expect(read.status).toBe(200)
    expect(JSON.stringify(await read.json())).toContain('"quote_id":7')
    expect((await memoryFetch(sim.httpUrl, { method: 'OPTIONS' })).status).toBe(204)
    sim.injectHttpFault({ status: 503, retryAfterSeconds: 2 })
    const busy = await memoryFetch(`${sim.httpUrl}/health`)
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '2'])
    sim.injectHttpFault({ destroy: true })
    await expect(memoryFetch(`${sim.httpUrl}/health`)).rejects.toThrow(TypeError)
    sim.injectHttpFault({ trickleMs: 20 })
    expect(await (await memoryFetch(`${sim.httpUrl}/health`)).json()).toEqual({ ok: true, protocol: 'rasa' })
    expect(sim.httpRequests().map((r) => r.url)).toEqual(['/position-state/0/10', '/health', '/health', '/health'])
  })

  it('an abort rejects with an AbortError; an unknown host is a network error', async () => {
    const sim = await start({ protocol: 'rasa' })
    const hold = sim.holdHttpAnswers()
    const controller = new AbortController()
    const pending = memoryFetch(`${sim.httpUrl}/position-state/0/10`, { method: 'POST', body: JSON.stringify({ counterparty_address: account }), signal: controller.signal })
    await hold.held(1)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    await expect(memoryFetch('https://sim-999999.memory.test/health')).rejects.toThrow(/no in-memory simulator/)
  })
})

it('nothing of Node is in the memory entry’s module graph (it loads in browsers, React Native and Workers)', () => {
  const here = dirname(fileURLToPath(import.meta.url))
  const seen = new Set<string>()
  const nodeImports: string[] = []
  const walk = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/^(?:import|export) (?!type )[^'\n]*from '([^']+)'/gm)) {
      if (target!.startsWith('.')) walk(resolve(dirname(file), target!).replace(/\.js$/, '.ts'))
      else nodeImports.push(`${file.slice(here.length + 1)} imports ${target}`)
    }
  }
  walk(resolve(here, 'memory.ts'))
  expect(seen.size).toBeGreaterThan(8)
  expect(nodeImports).toEqual([])
})
