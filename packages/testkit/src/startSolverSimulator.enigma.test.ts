import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SolverSimulator, startSolverSimulator } from './startSolverSimulator.js'
import { connectTestClient } from './testClient.js'

const A = '0xAaAa000000000000000000000000000000000001'
const B = '0xbbbb000000000000000000000000000000000002'
const pattern = (address: string, app_name = 'Chan', primary: string | number = '*', secondary: string | number = '*') => ({
  channel_patterns: [{ app_name, address, primary_identifier: primary, secondary_identifier: secondary }],
})
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })

let sim: SolverSimulator
beforeEach(async () => {
  sim = await startSolverSimulator({ protocol: 'enigma', channel: 'Chan', clockStart: 1_763_700_000 })
})
afterEach(() => sim.close())

describe('enigma simulator: sockets', () => {
  it('delivers envelopes only to sockets whose pattern matches channel and account (case-insensitive)', async () => {
    const a = await connectTestClient(sim.wsUrl)
    const b = await connectTestClient(sim.wsUrl)
    const other = await connectTestClient(sim.wsUrl)
    a.send(pattern(A.toLowerCase()))
    b.send(pattern(B))
    other.send(pattern(A, 'OtherChannel'))
    await expect.poll(() => sim.subscriptions().length).toBe(3)
    await sim.publish({ quote_id: 5, temp_quote_id: -1, counterparty_address: A, action_status: 'success' })
    expect(JSON.parse(await a.next())).toEqual({
      app_name: 'Chan',
      primary_identifier: 5,
      secondary_identifier: -1,
      address: A,
      data: { quote_id: 5, temp_quote_id: -1, counterparty_address: A, action_status: 'success' },
    })
    await sim.publish({ quote_id: 6, counterparty_address: B })
    expect(JSON.parse(await b.next()).primary_identifier).toBe(6)
    expect(a.messages).toHaveLength(1)
    expect(other.messages).toHaveLength(0)
    expect(sim.connections().map((c) => c.accounts)).toEqual([[A.toLowerCase()], [B.toLowerCase()], []])
    await Promise.all([a.close(), b.close(), other.close()])
  })

  it('matches specific identifiers and sends pre-chain quotes with primary 0', async () => {
    const c = await connectTestClient(sim.wsUrl)
    c.send(pattern(A, 'Chan', 9, '*'))
    await expect.poll(() => sim.subscriptions().length).toBe(1)
    await sim.publish({ quote_id: 0, temp_quote_id: -3, counterparty_address: A })
    await sim.publish({ quote_id: 9, temp_quote_id: -3, counterparty_address: A })
    expect(JSON.parse(await c.next())).toMatchObject({ primary_identifier: 9, secondary_identifier: -3 })
    expect(c.messages).toHaveLength(1)
    expect(sim.documents().map((d) => d.primary_identifier)).toEqual([0, 9])
    await c.close()
  })

  it('records and ignores bad subscribe frames, in order', async () => {
    const c = await connectTestClient(sim.wsUrl)
    c.send('hello')
    c.send({ address: [A] })
    c.send({ channel_patterns: [{ app_name: 'Chan', address: A }] })
    c.send(pattern(A))
    await expect.poll(() => sim.subscriptions().length).toBe(4)
    expect(sim.subscriptions().map((s) => s.valid)).toEqual([false, false, false, true])
    expect(sim.subscriptions()[0]).toEqual({ connectionId: 1, frame: 'hello', valid: false })
    expect(sim.connections()[0]!.received).toHaveLength(4)
    await c.close()
  })

  it('can send data as a JSON string', async () => {
    const s = await startSolverSimulator({ protocol: 'enigma', enigmaDataAsString: true })
    const c = await connectTestClient(s.wsUrl)
    c.send(pattern(A, s.channel))
    await expect.poll(() => s.subscriptions().length).toBe(1)
    await s.publish({ quote_id: 1, counterparty_address: A })
    expect(JSON.parse(JSON.parse(await c.next()).data)).toEqual({ quote_id: 1, counterparty_address: A })
    await c.close()
    await s.close()
  })

  it('rejects sockets on the wrong path', async () => {
    await expect(connectTestClient(sim.wsUrl.replace('/ws/v1/subscribe', '/nope'))).rejects.toThrow(/404/)
  })
})

describe('enigma simulator: search', () => {
  it('filters by top-level and data.* equality, newest first, with paging', async () => {
    const one = await sim.instantOpen(A)
    await sim.instantOpen(B)
    const all = await (await post(`${sim.searchUrl}/api/v1/search`, { query: {} })).json()
    expect([all.total, all.count]).toEqual([6, 6])
    const times = all.data.map((d: { modify_time: number }) => d.modify_time)
    expect(times).toEqual([...times].sort((x: number, y: number) => y - x))
    const mine = await (await post(`${sim.searchUrl}/api/v1/search`, { query: { address: A.toLowerCase(), 'data.quote_id': one.quoteId }, start: 0, size: 1 })).json()
    expect([mine.total, mine.count, mine.data[0].data.last_seen_action]).toEqual([2, 1, 'FillLimitOrderOpen'])
    const page2 = await (await post(`${sim.httpUrl}/api/v1/search`, { query: { address: A }, start: 2, size: 2 })).json()
    expect([page2.total, page2.count, page2.data[0].data.action_status]).toEqual([3, 1, 'seen'])
    expect(Object.keys(page2.data[0]).sort()).toEqual(['address', 'app_name', 'create_time', 'data', 'id', 'modify_time', 'primary_identifier', 'secondary_identifier'])
  })

  it.each([
    ['not JSON', '{oops', 'body is not JSON'],
    ['bad key', { query: { 'data..x': 1 } }, 'is not a field path'],
    ['object value', { query: { address: { $ne: 1 } } }, 'must be a string, number, boolean or null'],
    ['negative start', { query: {}, start: -1 }, 'start must be an integer'],
    ['zero size', { query: {}, size: 0 }, 'size must be an integer'],
    ['array body', [], 'body must be a JSON object'],
  ])('answers 400 with a JSON error for %s', async (_name, body, message) => {
    const res = await post(`${sim.searchUrl}/api/v1/search`, body)
    expect(res.status).toBe(400)
    expect((await res.json()).error).toContain(message)
  })
})
