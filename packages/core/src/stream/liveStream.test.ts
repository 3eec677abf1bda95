import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ServiceError } from '../errors/ServiceError.js'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import type { Notification } from '../protocol/types.js'

let live: Live
beforeEach(async () => {
  live = await startLive()
})
afterEach(() => live.stop())

const openSockets = (protocol: 'enigma' | 'rasa') => live.sims[protocol].connections().filter((c) => c.open).length

describe.each(['enigma', 'rasa'] as const)('%s live stream', (protocol) => {
  const solverId = () => live.solverOf[protocol]

  it('is lazy: nothing connects before the first subscription', () => {
    live.client.notifications({ account: accounts[0], solverId: solverId() })
    expect(live.client.stats().sockets).toBe(0)
    expect(live.sims[protocol].connections()).toHaveLength(0)
  })

  it('delivers normalized notifications of the subscribed account only', async () => {
    const events = record(live.client.events({ account: accounts[0], solverId: solverId() }))
    const notes = record(live.client.notifications({ account: accounts[0], solverId: solverId() }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
    await expect.poll(() => live.sims[protocol].subscriptions().length).toBe(1)
    await live.sims[protocol].instantOpen(accounts[1])
    const { quoteId, tempQuoteId } = await live.sims[protocol].instantOpen(accounts[0].toLowerCase())
    await notes.count(3)
    expect(notes.values.map((n) => [n.account, n.quoteId, n.tempQuoteId, n.type, n.phase, n.protocol, n.solverId, n.chainId, n.source])).toEqual([
      [protocol === 'rasa' ? accounts[0] : accounts[0].toLowerCase(), tempQuoteId, tempQuoteId, 'seen', 'open', protocol, solverId(), 42161, 'live'],
      [protocol === 'rasa' ? accounts[0] : accounts[0].toLowerCase(), quoteId, tempQuoteId, 'success', 'open', protocol, solverId(), 42161, 'live'],
      [protocol === 'rasa' ? accounts[0] : accounts[0].toLowerCase(), quoteId, tempQuoteId, 'success', 'fill', protocol, solverId(), 42161, 'live'],
    ])
    // the same frame object is shared by every subscriber of the account
    const fromEvents = events.values.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))
    expect(fromEvents[0]).toBe(notes.values[0])
    const stats = live.client.stats()
    expect(stats.frames.received).toBe(protocol === 'rasa' ? 3 : 3)
    expect(stats.frames.delivered).toBe(3)
  })

  it('late subscribers get the current status first', async () => {
    const first = record(live.client.status({ account: accounts[0], solverId: solverId() }))
    await first.until((v) => v.includes('open'))
    expect(first.values).toEqual(['connecting', 'open'])
    const late = record(live.client.status({ account: accounts[0], solverId: solverId() }))
    expect(late.values).toEqual(['open'])
    expect(openSockets(protocol)).toBe(1)
  })

  it('sends the subscribe frame exactly as the protocol wants, first thing on every open', async () => {
    const status = record(live.client.status({ account: accounts[0], solverId: solverId() }))
    await status.until((v) => v.includes('open'))
    await live.sims[protocol].dropAll(1012)
    await status.until((v) => v.filter((s) => s === 'open').length === 2)
    await expect.poll(() => live.sims[protocol].subscriptions().length).toBe(2)
    const expected =
      protocol === 'enigma'
        ? { channel_patterns: [{ app_name: 'Test_Channel', address: accounts[0], primary_identifier: '*', secondary_identifier: '*' }] }
        : { address: [accounts[0]] }
    const subs = live.sims[protocol].subscriptions()
    expect(subs.map((s) => s.frame)).toEqual([expected, expected])
    expect(new Set(subs.map((s) => s.connectionId)).size).toBe(2)
    expect(live.sims[protocol].connections()[0]!.received[0]).toBe(JSON.stringify(expected))
  })

  it('reconnects after a drop with status detail, and keeps delivering', async () => {
    const events = record(live.client.events({ account: accounts[0], solverId: solverId() }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
    await live.sims[protocol].dropAll(4000)
    await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open').length === 2)
    await expect.poll(() => live.sims[protocol].subscriptions().length).toBe(2)
    const statuses = events.values.filter((e) => e.type === 'status')
    expect(statuses.map((s) => s.status)).toEqual(['connecting', 'open', 'reconnecting', 'connecting', 'open'])
    const reconnecting = statuses[2]!
    expect(reconnecting).toMatchObject({ attempt: 1, closeCode: 4000, closeReason: 'simulator dropAll' })
    expect(reconnecting.type === 'status' && reconnecting.retryInMs).toBeGreaterThanOrEqual(250)
    expect(reconnecting.type === 'status' && reconnecting.retryInMs).toBeLessThanOrEqual(500)
    await live.sims[protocol].instantOpen(accounts[0])
    await events.until((v) => v.filter((e) => e.type === 'notification').length === 3)
    expect(live.client.stats().reconnects).toBe(1)
  })

  it('counts its sockets by state as they change (connecting/open/reconnecting), back to none when closed', async () => {
    const seen: string[] = []
    const shown = () => {
      const s = live.client.stats().socketStatus
      return `${s.connecting}/${s.open}/${s.reconnecting}`
    }
    const events = record(live.client.events({ account: accounts[0], solverId: solverId() }))
    const sub = live.client.events({ account: accounts[0], solverId: solverId() }).subscribe((e) => {
      if (e.type === 'status') seen.push(`${e.status} ${shown()}`)
    })
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
    await live.sims[protocol].dropAll(4000)
    await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open').length === 2)
    expect(seen).toEqual(['connecting 1/0/0', 'open 0/1/0', 'reconnecting 0/0/1', 'connecting 1/0/0', 'open 0/1/0'])
    sub.unsubscribe()
    live.client.close()
    expect(shown()).toBe('0/0/0')
  })

  it('drops malformed and control frames, counts them, and goes on (oversize: see below)', async () => {
    live.client.close()
    await live.stop()
    live = await startLive({ maxFrameBytes: 2048 })
    const notes = record(live.client.notifications({ account: accounts[0], solverId: solverId() }))
    const events = record(live.client.events({ account: accounts[0], solverId: solverId() }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
    await expect.poll(() => live.sims[protocol].subscriptions().length).toBe(1)
    const sim = live.sims[protocol]
    await sim.sendRaw('not json')
    await sim.sendRaw('{"ack":true}')
    await sim.sendRaw(protocol === 'rasa' ? '{"quote_id":"abc"}' : '{"data":{"quote_id":"abc"}}')
    await sim.publish({ quote_id: 5, counterparty_address: accounts[0], action_status: 'success' })
    await notes.count(1)
    expect(notes.values[0]!.quoteId).toBe(5)
    expect(live.client.stats().frames).toEqual({
      received: 4,
      delivered: 1,
      idReused: 0,
      dropped: { control: 1, malformed: 2, oversize: 0, unrouted: 0, duplicate: 0, stale: 0 },
    })
    expect(events.values.some((e) => e.type === 'error')).toBe(false)
  })
})

describe('sharing', () => {
  it('enigma opens one socket per account; rasa one hub for every account', async () => {
    const subs = accounts.flatMap((account) => [
      record(live.client.status({ account, solverId: 'alpha' })),
      record(live.client.status({ account, solverId: 'beta' })),
      record(live.client.status({ account: account.toLowerCase() as `0x${string}`, solverId: 'beta' })),
    ])
    await Promise.all(subs.map((s) => s.until((v) => v.includes('open'))))
    expect(openSockets('enigma')).toBe(3)
    expect(openSockets('rasa')).toBe(1)
    expect(live.client.stats()).toMatchObject({ sockets: 4, subscriptions: 9 })
    // the hub list: deduplicated case-insensitively, first casing and order
    const last = live.rasa.subscriptions().at(-1)!.frame
    expect(last).toEqual({ address: [...accounts] })
  })

  it('1,000 subscribers of one account: 1 socket, each frame parsed once and the same object delivered to all', async () => {
    const subs = Array.from({ length: 1000 }, () => record(live.client.notifications({ account: accounts[0], solverId: 'beta' })))
    await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
    await live.rasa.publish({ quote_id: 1, counterparty_address: accounts[0] })
    await Promise.all(subs.map((s) => s.count(1)))
    const first = subs[0]!.values[0]
    expect(subs.every((s) => s.values[0] === first)).toBe(true)
    expect(live.rasa.connections()).toHaveLength(1)
    expect(live.client.stats().frames).toMatchObject({ received: 1, delivered: 1 })
  })

  it('rasa: changes in one tick coalesce into one frame; a release sends the shrunk list after lingerMs', async () => {
    const many = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`)
    const first = record(live.client.status({ account: many[0]!, solverId: 'beta' }))
    await first.until((v) => v.includes('open'))
    const subs = many.slice(1).map((account) => record(live.client.status({ account, solverId: 'beta' })))
    await Promise.all(subs.map((s) => s.until((v) => v.includes('open'))))
    const frames = () => live.rasa.subscriptions().map((s) => (s.frame as { address: string[] }).address.length)
    await expect.poll(frames).toEqual([1, 200])
    // Two releases in one tick, with the clock ticking between them (as on a loaded machine): still one frame.
    const realNow = Date.now
    let skew = 0
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew++)
    subs[0]!.subscription.unsubscribe()
    subs[1]!.subscription.unsubscribe()
    clock.mockRestore()
    await expect.poll(frames).toEqual([1, 200, 198])
    expect((live.rasa.subscriptions().at(-1)!.frame as { address: string[] }).address).not.toContain(many[1])
  })

  it('routes rasa frames by counterparty_address, stamping the subscriber casing; unwatched accounts are unrouted', async () => {
    const notes = record(live.client.notifications({ account: accounts[1], solverId: 'beta' }))
    await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
    await live.rasa.publish({ quote_id: 3, counterparty_address: accounts[1].toLowerCase() })
    await notes.count(1)
    expect(notes.values[0]).toMatchObject({ account: accounts[1], counterpartyAddress: accounts[1].toLowerCase() })
    // the simulator only sends what a socket watches, so an unrouted frame needs sendRaw
    await live.rasa.sendRaw(JSON.stringify({ quote_id: 4, counterparty_address: accounts[2] }))
    await expect.poll(() => live.client.stats().frames.dropped.unrouted).toBe(1)
  })
})

describe('linger and release', () => {
  it('mount–unmount–mount within lingerMs opens exactly one socket', async () => {
    const a = record(live.client.status({ account: accounts[0] }))
    a.subscription.unsubscribe()
    const b = record(live.client.status({ account: accounts[0] }))
    await b.until((v) => v.includes('open'))
    b.subscription.unsubscribe()
    const c = record(live.client.status({ account: accounts[0] }))
    expect(c.values).toEqual(['open'])
    expect(live.enigma.connections()).toHaveLength(1)
    c.subscription.unsubscribe()
    await expect.poll(() => live.enigma.connections().length).toBe(0)
    expect(live.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it('never delivers frames that arrive after a release', async () => {
    const notes = record(live.client.notifications({ account: accounts[0], solverId: 'beta' }))
    await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
    notes.subscription.unsubscribe()
    await live.rasa.publish({ quote_id: 9, counterparty_address: accounts[0] }) // still lingering, still on the wire
    await expect.poll(() => live.client.stats().frames.received).toBe(1)
    expect(notes.values).toEqual([])
    expect(live.client.stats().frames.dropped.unrouted).toBe(1)
  })
})

describe('parameters and close', () => {
  it('throws ServiceError synchronously for bad parameters', () => {
    const call = (params: object) => () => live.client.events(params as never)
    expect(call({ account: '0x123' })).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
    expect(call({})).toThrowError(ServiceError)
    expect(call({ account: accounts[0], chainId: 1 })).toThrowError(expect.objectContaining({ code: 'UNKNOWN_CHAIN' }))
    expect(call({ account: accounts[0], solverId: 'nope' })).toThrowError(expect.objectContaining({ code: 'UNKNOWN_SOLVER' }))
  })

  it('close() emits closed and completes every stream; later subscriptions get closed at once', async () => {
    const status = record(live.client.status({ account: accounts[0] }))
    const notes = record(live.client.notifications({ account: accounts[0], solverId: 'beta' }))
    await status.until((v) => v.includes('open'))
    live.client.close()
    expect(status.values.at(-1)).toBe('closed')
    expect(status.completed && notes.completed).toBe(true)
    const after = record(live.client.status({ account: accounts[0] }))
    expect(after.values).toEqual(['closed'])
    expect(after.completed).toBe(true)
    await expect.poll(() => live.enigma.connections().length + live.rasa.connections().length).toBe(0)
    expect(live.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it('a subscriber that throws does not disturb the others or the socket', async () => {
    const { config } = await import('rxjs')
    const reported: unknown[] = []
    const previous = config.onUnhandledError
    config.onUnhandledError = (error) => reported.push(error)
    try {
      const bad = live.client.notifications({ account: accounts[0], solverId: 'beta' }).subscribe(() => {
        throw new Error('subscriber bug')
      })
      const good = record(live.client.notifications({ account: accounts[0], solverId: 'beta' }))
      await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
      await live.rasa.publish({ quote_id: 1, counterparty_address: accounts[0] })
      await live.rasa.publish({ quote_id: 2, counterparty_address: accounts[0] })
      await good.count(2)
      expect(good.values.map((n: Notification) => n.quoteId)).toEqual([1, 2])
      // rxjs reports a subscriber's own error on a later macrotask
      await expect.poll(() => reported.length).toBe(2)
      expect((reported[0] as Error).message).toBe('subscriber bug')
      bad.unsubscribe()
    } finally {
      config.onUnhandledError = previous
    }
  })
})

describe('memory is bounded by maxFrameBytes', () => {
  it.each(['enigma', 'rasa'] as const)('%s: the default Node socket refuses a frame over maxFrameBytes at the wire, counts it oversize, reports it and reconnects', async (protocol) => {
    await live.stop()
    live = await startLive({ maxFrameBytes: 64 * 1024, reconnect: { baseDelayMs: 20, maxDelayMs: 40 } })
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }))
    await expect.poll(() => sim.subscriptions().length).toBe(1)
    const firstConnection = sim.connections()[0]!.id
    // 4 MiB: without a payload limit ws would buffer all of it before the size check
    await sim.sendRaw(JSON.stringify({ pad: 'x'.repeat(4 * 1024 * 1024) }))
    await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open').length === 2)
    expect(sim.connections().find((c) => c.id === firstConnection)).toBeUndefined()
    const errors = events.values.flatMap((e) => (e.type === 'error' ? [e.error] : []))
    expect(errors).toEqual([expect.objectContaining({ code: 'SOCKET', message: expect.stringContaining('maxFrameBytes') })])
    expect(live.client.stats().frames).toMatchObject({ received: 1, delivered: 0, dropped: { oversize: 1 } })
    const reconnecting = events.values.find((e) => e.type === 'status' && e.status === 'reconnecting')
    expect(reconnecting).toMatchObject({ closeCode: 1009, closeReason: 'a frame over maxFrameBytes (65536 bytes)' })
    await expect.poll(() => sim.subscriptions().length).toBe(2)
    await sim.publish({ quote_id: 1, counterparty_address: accounts[0] })
    await events.until((v) => v.some((e) => e.type === 'notification'))
  })
})
