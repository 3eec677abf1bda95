import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SolverSimulator, startSolverSimulator } from './startSolverSimulator.js'
import { connectTestClient } from './testClient.js'

const A = '0xAaAa000000000000000000000000000000000001'
const B = '0xbbbb000000000000000000000000000000000002'
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const search = async (sim: SolverSimulator, start: number, size: number, body: Record<string, unknown> = {}) =>
  (await post(`${sim.httpUrl}/position-state/${start}/${size}`, { address: null, quote_id: null, create_time_gte: null, modify_time_gte: null, ...body })).json()

let sim: SolverSimulator
beforeEach(async () => {
  sim = await startSolverSimulator({ protocol: 'rasa', clockStart: 1_763_700_000 })
})
afterEach(() => sim.close())

describe('rasa simulator: hub', () => {
  it('routes bare frames by counterparty_address, the latest list replacing the previous one', async () => {
    const c = await connectTestClient(sim.wsUrl)
    c.send({ address: [A.toLowerCase()] })
    await expect.poll(() => sim.subscriptions().length).toBe(1)
    await sim.publish({ quote_id: 1, counterparty_address: A })
    await sim.publish({ quote_id: 2, counterparty_address: B })
    expect(JSON.parse(await c.next())).toEqual({ quote_id: 1, counterparty_address: A })
    c.send({ address: [B] })
    await expect.poll(() => sim.subscriptions().length).toBe(2)
    await sim.publish({ quote_id: 3, counterparty_address: A })
    await sim.publish({ quote_id: 4, counterparty_address: B.toUpperCase().replace('0X', '0x') })
    expect(JSON.parse(await c.next()).quote_id).toBe(4)
    expect(c.messages).toHaveLength(2)
    expect(sim.connections()[0]!.accounts).toEqual([B.toLowerCase()])
    c.send({ channel_patterns: [] })
    await expect.poll(() => sim.subscriptions().length).toBe(3)
    expect(sim.subscriptions().map((s) => s.valid)).toEqual([true, true, false])
    await c.close()
  })

  it('waitForSubscribers resolves once enough sockets watch the account, case-insensitively, and says why it timed out', async () => {
    const order: string[] = []
    const two = sim.waitForSubscribers(A.toUpperCase().replace('0X', '0x'), 2).then(() => order.push('two'))
    const c1 = await connectTestClient(sim.wsUrl)
    const c2 = await connectTestClient(sim.wsUrl)
    c1.send({ address: [A.toLowerCase()] })
    await sim.waitForSubscribers(A)
    order.push('one')
    c2.send({ address: [B, A] })
    await two
    expect(order).toEqual(['one', 'two'])
    // dropping the account from the list (or closing) is seen too
    c1.send({ address: [] })
    await expect.poll(() => sim.subscriptions().length).toBe(3)
    await expect(sim.waitForSubscribers(A, 2, { timeoutMs: 50 })).rejects.toThrow(/1 of 2 socket\(s\) watch .* after 50 ms/)
    // publishing right after it resolves reaches the socket
    await sim.publish({ quote_id: 7, counterparty_address: A })
    expect(JSON.parse(await c2.next()).quote_id).toBe(7)
    await Promise.all([c1.close(), c2.close()])
  })

  it('keeps the latest state per quote; anchoring replaces the temporary state', async () => {
    const { quoteId, tempQuoteId, frames } = await sim.instantOpen(A)
    expect(frames.map((f) => [f.quote_id, f.temp_quote_id, f.action_status])).toEqual([
      [tempQuoteId, tempQuoteId, 'seen'],
      [quoteId, tempQuoteId, 'success'],
      [quoteId, tempQuoteId, 'success'],
    ])
    expect(sim.positionStates()).toEqual([frames[2]])
    await sim.fail(B)
    expect(sim.positionStates().map((s) => s.action_status)).toEqual(['success', 'failed'])
  })
})

describe('rasa simulator: search', () => {
  it('filters by address, quote_id, create/modify time; newest first; pages', async () => {
    const a1 = await sim.instantOpen(A)
    const a2 = await sim.instantOpen(A)
    await sim.instantOpen(B)
    const all = await search(sim, 0, 100)
    expect(all.count).toBe(3)
    expect(all.position_state.map((s: { quote_id: number }) => s.quote_id)).toEqual([1002, 1001, 1000])
    const mine = await search(sim, 0, 1, { address: A.toLowerCase() })
    expect([mine.count, mine.position_state.length, mine.position_state[0].quote_id]).toEqual([2, 1, a2.quoteId])
    const second = await search(sim, 1, 1, { address: A })
    expect(second.position_state[0].quote_id).toBe(a1.quoteId)
    expect((await search(sim, 0, 10, { quote_id: a1.quoteId })).position_state).toHaveLength(1)
    const since = a2.frames[2]!.modify_time!
    expect((await search(sim, 0, 10, { modify_time_gte: since })).count).toBe(2)
    expect((await search(sim, 0, 10, { create_time_gte: a2.frames[0]!.create_time })).count).toBe(2)
  })

  it.each([
    ['/position-state/0/101', {}, 'size must be an integer from 1 to 100'],
    ['/position-state/-1/10', {}, 'start must be an integer'],
    ['/position-state/x/10', {}, 'start must be an integer'],
    ['/position-state/0/10', { address: 5 }, 'address must be a string or null'],
  ])('answers 400 for %s %j', async (path, body, message) => {
    const res = await post(`${sim.httpUrl}${path}`, body)
    expect(res.status).toBe(400)
    expect((await res.json()).error).toContain(message)
  })

  it('records every request with its body', async () => {
    await search(sim, 0, 5, { address: A })
    expect(sim.httpRequests()).toEqual([
      { method: 'POST', url: '/position-state/0/5', body: { address: A, quote_id: null, create_time_gte: null, modify_time_gte: null } },
    ])
  })
})

describe('CORS', () => {
  it('answers preflights and allows any origin, so browser apps can search', async () => {
    const preflight = await fetch(`${sim.httpUrl}/position-state/0/1`, { method: 'OPTIONS', headers: { origin: 'http://app.local', 'access-control-request-method': 'POST' } })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-headers')]).toEqual([204, '*', 'content-type'])
    const res = await post(`${sim.httpUrl}/position-state/0/1`, {})
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(sim.httpRequests()).toHaveLength(1)
  })
})
