import { type NotificationsClient, createConfig, createNotificationsClient } from '@solver-notifications/core'
import { checkpointKey } from '@solver-notifications/core/internal'
import { type SimulatorFrame, type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it, vi } from 'vitest'
import { accountKey } from './accountKeys.js'
import { type AccountContext, AccountRelay, StreamPositions } from './AccountRelay.js'
import type { JetStreamPublisher } from './JetStreamPublisher.js'
import type { Checkpoint, PartitionCheckpoint } from './PartitionCheckpoint.js'
import type { RelayMetrics } from './RelayMetrics.js'
import type { RepeatedLines } from './RepeatedLines.js'

// One account's relay in-process, against the simulator over real sockets and HTTP: what it publishes
// (a publisher that acknowledges everything) and the position a takeover would resume from. The
// metrics, logger and partition record are stand-ins: nothing here is about NATS.

const A = '0xAbC0000000000000000000000000000000000001' as const
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

function clientOf(sim: SolverSimulator, protocol: 'enigma' | 'rasa' = 'enigma'): NotificationsClient {
  const solver = protocol === 'enigma'
    ? { notifications: { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } }
    : { url: sim.httpUrl, notifications: { protocol, url: sim.wsUrl } }
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'alpha', solvers: { alpha: solver } } } })
  const client = createNotificationsClient({ config, lingerMs: 0, reconnect: { baseDelayMs: 20, maxDelayMs: 40 } })
  cleanups.push(() => client.close())
  return client
}

/**
 * A relay of account A that publishes into `published` (each acknowledged on the next microtask; as
 * JetStream does, a `Nats-Msg-Id` already in `stored` is acknowledged as a duplicate). `recovered` and
 * `lines` are what it told the metrics and the aggregated log lines of recovered notifications.
 */
function relayOf(client: NotificationsClient, start: Checkpoint, stored = new Set<string>(), protocol: 'enigma' | 'rasa' = 'enigma') {
  const published: string[] = []
  const recovered: string[] = []
  const lines: Array<{ kind: string; cause: string; fields: object }> = []
  let acks = 0
  const publisher = {
    publish: (_subject: string, body: string, msgId: string, done: (error: undefined, duplicate: boolean) => void) => {
      published.push((JSON.parse(body) as { id: string }).id)
      queueMicrotask(() => {
        acks++
        const duplicate = stored.has(msgId)
        stored.add(msgId)
        done(undefined, duplicate)
      })
    },
  } as unknown as JetStreamPublisher
  const metrics = new Proxy({}, { get: (_t, name) => (name === 'stream' ? () => ({ count: 0 }) : name === 'recovered' ? (protocol: string) => recovered.push(protocol) : () => {}), set: () => true }) as unknown as RelayMetrics
  const quiet = { debug() {}, info() {}, warn() {}, error() {} }
  const repeated = { add: (kind: string, cause: string, fields: object = {}) => lines.push({ kind, cause, fields }), flush() {} } as unknown as RepeatedLines
  const ctx: AccountContext = { positions: new StreamPositions(), client, publisher, subjectPrefix: 'test', metrics, logger: quiet, lines: repeated, protocolOf: () => protocol, streamLost: () => Promise.resolve(false), tracer: () => undefined }
  const record = { positionOf: () => start, moved() {}, forget() {} } as unknown as PartitionCheckpoint
  const relay = AccountRelay.prepare({ key: accountKey(1, 'alpha', A), chainId: 1, solverId: 'alpha', account: A }, ctx, record, start.since)
  cleanups.push(() => relay.stop(0))
  return { relay, published, recovered, lines, acks: () => acks }
}

const row = (id: string, quote: number, time: number): SimulatorFrame => ({ id, quote_id: quote, temp_quote_id: -quote, modify_time: time, counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'success' })

it('a socket dropped in the middle of a backfill: the position stays before the second drop until a backfill covers it, so a takeover reads a row history shows late from that gap', async () => {
  const sim = await startSolverSimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  // Times as a solver stamps them (a gap starts where the stream stood: rows older than that are not in it).
  const t0 = Math.floor(Date.now() / 1000)
  const first = relayOf(clientOf(sim), { since: t0 - 10, ids: [] })
  await first.relay.begin()
  await sim.waitForSubscribers(A)
  await sim.publish(row('r0', 1, t0))
  await vi.waitUntil(() => first.acks() === 1)

  // Drop 1, and while it is down a row the reconnect backfill will bring, newer than anything delivered.
  sim.refuseSockets()
  await sim.dropAll(1012)
  await sim.publish(row('rA', 2, t0 + 30), { live: false })
  // The reconnect backfill is slow to answer (and so is the next one); the socket drops while it runs
  // (drop 2: a gap from where the stream stands, about t0) and is back before it ends.
  const before = sim.httpRequests().length
  sim.injectHttpFault({ times: 2, delayMs: 1_500 })
  sim.refuseSockets(false)
  await vi.waitUntil(() => sim.httpRequests().length > before, { timeout: 5_000 })
  const newest = Math.max(...sim.connections().map((c) => c.id))
  await sim.dropAll(1012)
  await vi.waitUntil(() => sim.connections().some((c) => c.open && c.id > newest), { timeout: 5_000 })
  // The first backfill ends with the socket open and brings rA (t0 + 30), past the second drop: delivered
  // and acknowledged. The backfill of the second gap starts now, slow to answer.
  await vi.waitUntil(() => first.acks() === 2, { timeout: 5_000 })
  expect(first.published).toEqual(['r0', 'rA'])
  // History shows, late, a row of the second gap (t0 + 20): no backfill has covered that gap yet.
  await sim.publish(row('rL', 3, t0 + 20), { live: false })
  // The relay dies here (no graceful stop): a takeover resumes from its last position, which must not be past rL.
  const position = first.relay.checkpoint()
  expect(position.since).toBeLessThanOrEqual(t0 + 20)
  first.relay.detach()

  const second = relayOf(clientOf(sim), position)
  await second.relay.begin()
  await vi.waitUntil(() => second.published.includes('rL'), { timeout: 5_000 })
  expect(second.published.filter((id) => id === 'rL')).toHaveLength(1)
})

it('a rasa takeover: a state its backfill brings that no relay published is counted and said, for the transitions before it were published while no relay watched and rasa history keeps only the latest; one already published is not', async () => {
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const t0 = Math.floor(Date.now() / 1000)
  // JetStream's de-duplication by Nats-Msg-Id, which both relays publish into.
  const stored = new Set<string>()
  const first = relayOf(clientOf(sim, 'rasa'), { since: t0 - 10, ids: [] }, stored, 'rasa')
  await first.relay.begin()
  await sim.waitForSubscribers(A)
  await sim.publish(row('q1', 1, t0))
  await vi.waitUntil(() => first.acks() === 1)
  const position = first.relay.checkpoint()
  first.relay.detach()
  // Nobody watches A: quote 2 opens, then fills; rasa history keeps the fill only.
  await sim.publish({ ...row('q2-open', 2, t0 + 1), last_seen_action: 'InstantOpen' }, { live: false })
  await sim.publish({ ...row('q2-fill', 2, t0 + 2), last_seen_action: 'FillOrder' }, { live: false })
  // The first relay's stream may still have delivered q1 again from its own history: what counts is the takeover.
  const second = relayOf(clientOf(sim, 'rasa'), { since: t0 - 10, ids: [] }, stored, 'rasa')
  await second.relay.begin()
  // q1 again (its backfill reads from before it: JetStream has it) and q2's latest state (nobody published it).
  await vi.waitUntil(() => second.acks() === 2, { timeout: 5_000 })
  expect(second.published.sort()).toEqual(['q1', 'q2-fill'])
  expect(second.recovered).toEqual(['rasa'])
  expect(second.lines).toEqual([{ kind: 'latest states recovered from history, the transitions before them may be missing', cause: 'rasa', fields: { account: accountKey(1, 'alpha', A), quoteId: 2, modifyTime: t0 + 2 } }])
  expect(first.recovered).toEqual([])
  expect(position.since).toBeLessThanOrEqual(t0)
})

it("core's checkpoint key is the account key with colons for dots (StreamPositions routes a stream's position by it)", () => {
  for (const [chainId, solverId, account] of [[1, 'alpha', A], [42161, 'beta-2', '0x00000000000000000000000000000000000000FF'], [8453, 'x_y=z', A.toLowerCase()]] as const) {
    expect(checkpointKey(chainId, solverId, account).replaceAll(':', '.')).toBe(accountKey(chainId, solverId, account))
  }
})
