import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { createConfig } from '../../config/createConfig.js'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import { rasaSearch } from '../../protocol/rasa/rasaSearch.js'
import { searchProtocols } from '../../protocol/searchProtocols.js'
import { createBackfill } from '../../search/backfill.js'
import { Timers } from '../../transport/Timers.js'
import { type ClientStats, createClientStats } from '../ClientStats.js'
import type { NotificationEvent } from '../NotificationEvent.js'
import { ResumeStream } from './ResumeStream.js'

/**
 * Resume with the real backfill walk (paging, row checks, foreign rows, 429s) against a model of a
 * rasa history service: the latest state per quote, newest `modify_time` first, paged by offset, so
 * rows inserted or moved while the walk pages shift the pages under it. Pages are 3 rows here (the
 * test narrows rasa's page size), so every gap spans pages. The service may repeat a row, mix in
 * another account's rows and answer 429 with `Retry-After`. The promise checked when the dust
 * settles (socket open, every request answered): each quote's latest state was delivered, no
 * notification twice, and each quote's deliveries in `modify_time` order, unless a loss was reported
 * (`stale`, `BACKFILL_TRUNCATED`).
 */

const account = '0xAbC0000000000000000000000000000000000001'
const other = '0xDeF0000000000000000000000000000000000002'
const T = 1_763_700_000
const PAGE = 3

type Action =
  | { kind: 'publish'; quote: number; sameSecond: boolean }
  | { kind: 'drop' }
  | { kind: 'open' }
  | { kind: 'answer'; repeat: boolean; foreign: boolean }
  | { kind: 'throttle' }
  | { kind: 'wait'; ms: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('publish' as const), quote: fc.integer({ min: 1, max: 8 }), sameSecond: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'open' as const }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('answer' as const), repeat: fc.boolean(), foreign: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throttle' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 2_500 }) }) },
)

interface Row {
  id: string
  quote_id: number
  modify_time: number
  counterparty_address: string
  action_status: string
  last_seen_action: string
  filled_amount_open: string
}

interface Pending {
  url: string
  body: { address: string | null; modify_time_gte: number | null }
  resolve: (response: Response) => void
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

async function run(actions: Action[]): Promise<string | undefined> {
  /** the service's state: the latest row per quote, both accounts */
  const latest = new Map<string, Row>()
  const pending: Pending[] = []
  let clock = T
  let open = false
  let seq = 0
  const delivered: Array<{ id: string; quote: number; time: number }> = []
  let reported = 0
  const config = createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 's', solvers: { s: { url: 'http://127.0.0.1:9', notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9' } } } } },
  })
  const fetch: typeof globalThis.fetch = (input, init) =>
    new Promise((resolve) => {
      pending.push({ url: String(input instanceof Request ? input.url : input), body: JSON.parse(String(init?.body ?? '{}')), resolve })
    })
  const backfill = createBackfill({ fetch, timeoutMs: 60_000 })(config.getSolver(), account)
  const stats = { ...createClientStats(), timers: 0 } as ClientStats
  const stream = new ResumeStream(
    {
      notification: (n) => delivered.push({ id: n.id!, quote: n.quoteId, time: n.modifyTime! }),
      event: (e: NotificationEvent) => {
        if (e.type === 'status' && e.backfill && e.backfill.state !== 'started') reported += e.backfill.stale
        if (e.type === 'error' && e.error.code === 'BACKFILL_TRUNCATED') reported += 1_000
      },
      complete: () => {},
    },
    {
      fetch: backfill,
      timers: new Timers(),
      backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
      random: () => 1,
      stats,
      keyOf: (of) => `1:s:${of.toLowerCase()}`,
    },
    account,
    { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, dedupeWindow: 2_048, checkpointTimeoutMs: 10_000, poll: undefined },
  )
  stream.start(undefined)
  stream.event({ type: 'status', status: 'connecting', attempt: 0 })

  // One page as the service answers it now: newest first, offset paging over the current state.
  const page = (request: Pending, repeat: boolean, foreign: boolean): Response => {
    const [, start, size] = /\/position-state\/(\d+)\/(\d+)$/.exec(new URL(request.url).pathname)!.map(Number)
    const since = request.body.modify_time_gte ?? 0
    const mine = [...latest.values()]
      .filter((r) => r.counterparty_address.toLowerCase() === request.body.address?.toLowerCase() && r.modify_time >= since)
      .sort((a, b) => b.modify_time - a.modify_time)
    const rows: Row[] = mine.slice(start!, start! + size!)
    // A sloppy service: a row twice in one page, another account's row mixed in (still within size).
    if (repeat && rows.length > 0 && rows.length < size!) rows.push(rows[0]!)
    const stranger = [...latest.values()].find((r) => r.counterparty_address === other)
    if (foreign && stranger && rows.length < size!) rows.push(stranger)
    return json({ count: mine.length, position_state: rows })
  }

  for (const a of actions) {
    switch (a.kind) {
      case 'publish': {
        // The service's clock is this machine's: a publish is stamped now (a second later unless `sameSecond`).
        if (!a.sameSecond) vi.setSystemTime(Date.now() + 1_000)
        clock = Math.floor(Date.now() / 1000)
        const n = seq++
        const owner = n % 5 === 4 ? other : account
        const row: Row = {
          id: `n${n}`,
          quote_id: a.quote,
          modify_time: clock,
          counterparty_address: owner,
          action_status: 'success',
          last_seen_action: 'FillLimitOrderOpen',
          filled_amount_open: `${n}`,
        }
        latest.set(`${owner}:${a.quote}`, row)
        if (open && owner === account) stream.notification(live(row))
        break
      }
      case 'drop':
        if (open) {
          open = false
          stream.event({ type: 'status', status: 'reconnecting', attempt: 1 })
        }
        break
      case 'open':
        if (!open) {
          open = true
          stream.event({ type: 'status', status: 'open', attempt: 1 })
        }
        break
      case 'answer': {
        const request = pending.shift()
        if (request) request.resolve(page(request, a.repeat, a.foreign))
        break
      }
      case 'throttle': {
        const request = pending.shift()
        if (request) request.resolve(json({ error: 'slow down' }, 429, { 'retry-after': '1' }))
        break
      }
      case 'wait':
        await vi.advanceTimersByTimeAsync(a.ms)
        break
    }
    await vi.advanceTimersByTimeAsync(0)
  }
  // The dust settles: the socket opens and the service answers everything, faithfully.
  if (!open) {
    open = true
    stream.event({ type: 'status', status: 'open', attempt: 1 })
  }
  for (let round = 0; round < 200; round++) {
    await vi.advanceTimersByTimeAsync(round % 10 === 9 ? 2_000 : 0)
    if (pending.length === 0 && round > 20) break
    for (const request of pending.splice(0)) request.resolve(page(request, false, false))
  }
  stream.dispose()

  const ids = delivered.map((d) => d.id)
  const twice = ids.filter((id, k) => ids.indexOf(id) !== k)
  if (twice.length) return `delivered ${twice.join(', ')} twice`
  const lastOf = new Map<number, number>()
  for (const d of delivered) {
    if ((lastOf.get(d.quote) ?? 0) > d.time) return `quote ${d.quote}: ${d.id} at ${d.time - T} after a later transition`
    lastOf.set(d.quote, d.time)
  }
  const missing = [...latest.values()].filter((r) => r.counterparty_address === account && !ids.includes(r.id)).map((r) => r.id)
  if (missing.length > 0 && reported === 0) return `latest state missing: ${missing.join(', ')}`
  return undefined
}

/** The live frame of a row: the same content history stores. */
const live = (row: Row) => normalizeNotification({ ...row }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source: 'live' })

const realSearch = searchProtocols.rasa
beforeAll(() => {
  // Pages of 3 rows: every gap spans pages, and rows moving under the walk cross page boundaries.
  Object.assign(searchProtocols, { rasa: { ...rasaSearch, pageSize: PAGE } })
})
afterAll(() => {
  Object.assign(searchProtocols, { rasa: realSearch })
})
beforeEach(() => vi.useFakeTimers({ now: T * 1000 }))
afterEach(() => vi.useRealTimers())

it('resume through the real paged backfill delivers each quote’s latest state once and in order, over rows moving between pages, repeats, foreign rows and 429s', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 20, maxLength: 60, size: 'max' }), async (actions) => {
      vi.setSystemTime(T * 1000)
      expect(await run(actions)).toBeUndefined()
    }),
    { numRuns: Number(process.env.RESUME_MODEL_RUNS ?? 200), seed: process.env.RESUME_MODEL_SEED ? Number(process.env.RESUME_MODEL_SEED) : undefined },
  )
}, 120_000)
