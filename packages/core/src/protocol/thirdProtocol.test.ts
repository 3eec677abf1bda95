import { type SimulatorProtocolModule, type SolverSimulator, registerSimulatorProtocol, startSolverSimulator } from '@solver-notifications/testkit'
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import { FakeLocks } from '../../test/FakeLocks.js'
import { record } from '@solver-notifications/test-support'
import { type NotificationsClient, createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'
import type { NotificationEvent } from '../stream/NotificationEvent.js'
import { NOT_JSON, isPlainObject, parseJson, sealRaw } from './frame.js'
import type { WireFrame } from './frame.js'
import type { ProtocolConfigModule, ProtocolModule } from './ProtocolModule.js'
import type { RawPositionNotification } from './rawNotification.js'
import type { SearchParamsBase } from './searchParamsBase.js'
import type { Address } from '../utils/address.js'
import { registerProtocol } from './registerProtocol.js'

// A third wire protocol, "toy", defined in this file only: its client module and its simulator module,
// each registered with one call. Live streams, search, paging, backfill, cross-tab forwarding and the
// testkit all run it with no other change (the recipe in core's README).

// The client half: a hub socket subscribed with {"watch":[…]}, frames as {"toy":{…}}, history at POST /toy/search.
// Typed by its own frame, row, params, result and config: no casts.
interface ToyConfig {
  readonly protocol: 'toy'
  readonly url: string
}
interface ToyRow {
  state: RawPositionNotification
}
interface ToyParams extends SearchParamsBase {
  timestampGte?: number | undefined
}
interface ToyResult {
  kind: 'toy'
  total: number
  rows: ToyRow[]
}
const toyFrame = (raw: RawPositionNotification): WireFrame => ({
  kind: 'frame',
  raw,
  address: typeof raw.counterparty_address === 'string' ? raw.counterparty_address : undefined,
  quote: typeof raw.quote_id === 'number' ? raw.quote_id : null,
  temp: typeof raw.temp_quote_id === 'number' ? raw.temp_quote_id : null,
})
const toyConfig: ProtocolConfigModule<'toy'> = {
  protocol: 'toy',
  configSchema: (z) => z.object({ protocol: z.literal('toy'), url: z.nonEmpty('a ws:// or wss:// URL') }),
  configShape: '{ protocol: "toy", url }',
  urlFields: [{ key: 'url', schemes: ['ws:', 'wss:'] }],
}
const toyProtocol: ProtocolModule<WireFrame, ToyRow, ToyParams, ToyResult, ToyConfig> = {
  protocol: 'toy',
  endpointKey: (notifications) => `toy ${notifications.url}`,
  multiplexed: true,
  subscribeFrame: (_notifications, accounts) => JSON.stringify({ watch: accounts }),
  decode(text) {
    const message = parseJson(text)
    if (message === NOT_JSON) return { kind: 'malformed', reason: 'not JSON' }
    if (!isPlainObject(message) || !isPlainObject(message.toy)) return { kind: 'control' }
    return toyFrame(sealRaw(message.toy))
  },
  frameOf: toyFrame,
  search: {
    decodeStored: (row) => toyFrame(row.state),
    defaultSize: 50,
    pageSize: 50,
    maxSize: 50,
    newestFirst: false,
    request: (solver, params) => ({
      url: `${solver.url}/toy/search`,
      body: { account: params.account ?? null, since: params.timestampGte ?? null, start: params.start ?? 0, size: params.size ?? 50 },
    }),
    envelope: { rows: 'items', rowsOptional: false, numbers: ['total'] },
    checkRow: (row) => (isPlainObject(row) && isPlainObject(row.state) ? undefined : '.state is not an object'),
    result: (envelope, rows) => ({ kind: 'toy', total: Number(envelope.total), rows }),
    totalOf: (result) => result.total,
    backfillParams: (account, since) => ({ account, timestampGte: since }),
    quoteParams: (account) => ({ account }),
  },
}

// The simulator half: the same wire, history kept as a list.
const toySimulator: SimulatorProtocolModule = {
  name: 'toy',
  wsPath: '/toy',
  create() {
    const stored: Array<Record<string, unknown>> = []
    return {
      newSocket: () => undefined,
      subscribe: (_socket, frame) =>
        isPlainObject(frame) && Array.isArray(frame.watch) ? new Set(frame.watch.map((a) => String(a).toLowerCase())) : undefined,
      encode: (frame) => JSON.stringify({ toy: frame }),
      matches: () => true,
      store: (frame) => {
        stored.push(frame)
      },
      route(method, pathname, body) {
        if (method !== 'POST' || pathname !== '/toy/search') return undefined
        if (!isPlainObject(body)) return { body: { error: 'expected a JSON object' } }
        const account = typeof body.account === 'string' ? body.account.toLowerCase() : null
        const since = typeof body.since === 'number' ? body.since : null
        const start = Number(body.start)
        const hits = stored.filter(
          (f) => (account === null || String(f.counterparty_address).toLowerCase() === account) && (since === null || Number(f.modify_time) >= since),
        )
        return { body: { total: hits.length, items: hits.slice(start, start + Number(body.size)).map((state) => ({ state })) } }
      },
    }
  },
  lifecycle: { preChainQuoteId: (temp) => temp, noValue: null, extraFields: { toy_colour: 'teal' }, failureFields: () => ({}) },
  describe: (sim) => [`  wsUrl: ${sim.wsUrl}`],
}

const A: Address = '0xAbC0000000000000000000000000000000000001'
let sim: SolverSimulator
let clients: NotificationsClient[] = []
const unregister: Array<() => void> = []

beforeAll(async () => {
  unregister.push(registerProtocol(toyProtocol, toyConfig), registerSimulatorProtocol(toySimulator))
  sim = await startSolverSimulator({ protocol: 'toy' })
})
afterAll(async () => {
  await sim.close()
  for (const undo of unregister) undo()
})
afterEach(async () => {
  for (const c of clients) c.close()
  clients = []
  vi.unstubAllGlobals()
  // The next test's waitForSubscribers must not see a socket of this one.
  await expect.poll(() => sim.connections().filter((c) => c.open).length).toBe(0)
})

// A run-time protocol is not in the config's static types, so its config arrives as data (as a JSON
// config file would): createConfig checks it at run time against the registered block.
const toyInput = (): unknown => ({
  defaultChainId: 7,
  chains: { 7: { defaultSolver: 'toy', solvers: { toy: { url: sim.httpUrl, notifications: { protocol: 'toy', url: sim.wsUrl } } } } },
})
const config = () => createConfig(JSON.parse(JSON.stringify(toyInput())))
const client = (options: { crossTab?: { name: string } } = {}) => {
  const c = createNotificationsClient({ config: config(), lingerMs: 0, reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, ...options })
  clients.push(c)
  return c
}
const notes = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))

it('the config accepts the new protocol (and names it among the expected shapes when a block is wrong)', () => {
  expect(config().getSolver().notifications.protocol).toBe('toy')
  const wrong = { defaultChainId: 7, chains: { 7: { defaultSolver: 'x', solvers: { x: { notifications: { protocol: 'nope', url: 'wss://x' } } } } } }
  expect(() => createConfig(JSON.parse(JSON.stringify(wrong)))).toThrow(/notifications.protocol: expected "enigma" or "rasa" or "toy", got "nope"/)
})

it('live, then search and paging, then a backfill after a drop', async () => {
  const c = client()
  const events = record(c.events({ account: A }, { resume: true }))
  await sim.waitForSubscribers(A)
  const first = await sim.instantOpen(A)
  await events.until((v) => notes(v).length === 3)
  expect(notes(events.values).map((n) => [n.protocol, n.chainId, n.solverId, n.account, n.id])).toEqual(first.frames.map((f) => ['toy', 7, 'toy', A, f.id]))
  expect(notes(events.values).map((n) => n.phase)).toEqual(['open', 'open', 'fill'])

  const page = await c.search({ account: A })
  expect(page).toMatchObject({ kind: 'toy', total: 3 })
  expect(page.rows.length).toBe(3)
  const sizes: number[] = []
  for await (const p of c.searchPages({ account: A, size: 2 })) sizes.push(p.rows.length)
  expect(sizes).toEqual([2, 1])

  await sim.dropAll(1012)
  const missed = await sim.instantOpen(A)
  await events.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
  await events.until((v) => notes(v).length === 6)
  const backfill = events.values.flatMap((e) => (e.type === 'status' && e.backfill ? [e.backfill] : []))
  expect(backfill.at(-1)).toMatchObject({ state: 'finished', recovered: 3 })
  expect(notes(events.values).slice(3).map((n) => [n.id, n.source])).toEqual(missed.frames.map((f) => [f.id, 'backfill']))
})

it('cross-tab: a follower tab gets the new protocol’s notifications forwarded by the leader', async () => {
  const locks = new FakeLocks()
  const tab = () => {
    vi.stubGlobal('navigator', { locks: locks.forClient() })
    return client({ crossTab: { name: 'toy' } })
  }
  const tabs = [tab(), tab()]
  const streams = tabs.map((t) => record(t.events({ account: A })))
  await sim.waitForSubscribers(A)
  // The follower's stream is open once the leader serves it (its status comes through the channel).
  for (const s of streams) await s.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  const opened = await sim.instantOpen(A)
  for (const s of streams) await s.until((v) => notes(v).length === 3)
  expect(streams.map((s) => notes(s.values).map((n) => n.id))).toEqual([opened.frames.map((f) => f.id), opened.frames.map((f) => f.id)])
  // Every field survives the channel, the protocol's own raw field too: the follower's notifications equal the leader's.
  const [first, second] = streams.map((s) => notes(s.values))
  expect(second).toEqual(first)
  expect(first!.map((n) => n.raw.toy_colour)).toEqual(['teal', 'teal', 'teal'])
  expect(tabs.map((t) => t.stats().crossTab!.role).sort()).toEqual(['follower', 'leader'])
  expect(tabs.map((t) => t.stats().crossTab!.dropped)).toEqual([0, 0])
})
