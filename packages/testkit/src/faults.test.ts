import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SolverSimulator, startSolverSimulator } from './startSolverSimulator.js'
import { connectTestClient } from './testClient.js'

const A = '0xAaAa000000000000000000000000000000000001'
let sim: SolverSimulator
beforeEach(async () => {
  sim = await startSolverSimulator({ protocol: 'rasa' })
})
afterEach(() => sim.close())

async function subscribed() {
  const c = await connectTestClient(sim.wsUrl)
  c.send({ address: [A] })
  await expect.poll(() => sim.subscriptions().length).toBeGreaterThan(0)
  return c
}

describe('socket faults', () => {
  it('dropAll closes every socket with the given code, or terminates them', async () => {
    const c1 = await subscribed()
    const c2 = await connectTestClient(sim.wsUrl)
    await sim.dropAll(4000)
    expect((await c1.closed).code).toBe(4000)
    expect((await c2.closed).code).toBe(4000)
    expect(sim.connections()).toHaveLength(0)
    const c3 = await connectTestClient(sim.wsUrl)
    await sim.dropAll(undefined, { terminate: true })
    expect((await c3.closed).code).toBe(1006)
  })

  it('stall sends nothing and answers no pings; resume restores both', async () => {
    const c = await subscribed()
    const pong = () =>
      new Promise<'pong'>((resolve) => {
        c.ws.once('pong', () => resolve('pong'))
        c.ws.ping()
      })
    expect(await pong()).toBe('pong')
    sim.stall()
    let ponged = false
    c.ws.once('pong', () => {
      ponged = true
    })
    c.ws.ping()
    await sim.publish({ quote_id: 1, counterparty_address: A })
    await sim.sendRaw('raw')
    sim.resume()
    await sim.publish({ quote_id: 2, counterparty_address: A })
    expect(JSON.parse(await c.next()).quote_id).toBe(2)
    expect(c.messages).toHaveLength(1)
    expect(ponged).toBe(false)
    expect(await pong()).toBe('pong')
    expect(sim.positionStates().map((s) => s.quote_id)).toEqual([1, 2])
    await c.close()
  })

  it('sendRaw sends text as-is', async () => {
    const c = await subscribed()
    await sim.sendRaw('{not json')
    expect(await c.next()).toBe('{not json')
    await c.close()
  })
})

describe('HTTP faults', () => {
  const url = () => `${sim.httpUrl}/position-state/0/10`
  const post = () => fetch(url(), { method: 'POST', body: '{}' })

  it('fails the next N responses with a status and Retry-After, then answers normally', async () => {
    sim.injectHttpFault({ times: 2, status: 503, retryAfterSeconds: 2, body: { error: 'busy' } })
    const first = await post()
    expect([first.status, first.headers.get('retry-after'), await first.json()]).toEqual([503, '2', { error: 'busy' }])
    expect((await post()).status).toBe(503)
    expect((await post()).status).toBe(200)
  })

  it('delays, destroys, or answers a raw body', async () => {
    sim.injectHttpFault({ delayMs: 30 })
    const started = Date.now()
    expect((await post()).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    sim.injectHttpFault({ destroy: true })
    await expect(post()).rejects.toThrow()
    sim.injectHttpFault({ rawBody: '<html>' })
    expect(await (await post()).text()).toBe('<html>')
    expect(sim.httpRequests()).toHaveLength(3)
  })
})

describe('lifecycles', () => {
  it('publish realistic sequences with strictly increasing modify_time', async () => {
    const open = await sim.instantOpen(A, { amount: '2', price: '100.5' })
    const fill = await sim.fill(open.quoteId)
    const close = await sim.closeRequest(open.quoteId)
    const failed = await sim.fail(A, { failureType: 'PRICE_OUT_OF_RANGE', errorCode: 77 })
    const frames = [...open.frames, ...fill.frames, ...close.frames, ...failed.frames]
    const times = frames.map((f) => f.modify_time!)
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]!)
    expect(frames.map((f) => f.last_seen_action)).toEqual([
      'InstantRFQ', 'InstantRFQ', 'FillLimitOrderOpen', 'FillLimitOrderOpen',
      'InstantRequestToClosePosition', 'InstantRequestToClosePosition', 'FillOrderInstantClose',
      'InstantRFQ', 'InstantRFQ',
    ])
    expect(open.frames[2]).toMatchObject({ state_type: 'report', filled_amount_open: '2', avg_price_open: '100.5', filled_amount_close: 0, error_code: 0, order_type: 1 })
    expect(failed.frames[1]).toMatchObject({ action_status: 'failed', failure_type: 'PRICE_OUT_OF_RANGE', error_code: 77, quote_id: failed.tempQuoteId })
    expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length)
    await expect(sim.fill(42)).rejects.toThrow(/instantOpen first/)
  })

  it('enigma lifecycles send quote_id 0 before anchoring and failure messages', async () => {
    const enigma = await startSolverSimulator({ protocol: 'enigma' })
    const open = await enigma.instantOpen(A)
    expect(open.frames.map((f) => f.quote_id)).toEqual([0, open.quoteId, open.quoteId])
    expect(open.frames[0]).toMatchObject({ temp_quote_id: open.tempQuoteId, filled_amount_open: null, error_code: null, version: 1 })
    const failed = await enigma.fail(A)
    expect(failed.frames[1]).toMatchObject({ failure_message: 'not enough allocated balance', error_code: 1203 })
    await enigma.close()
  })
})
