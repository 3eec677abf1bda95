import { type SimulatorFrame, type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeLocks } from '../../../test/FakeLocks.js'
import { record } from '@solver-notifications/test-support'
import { TAB_PROTOCOL, tabNames } from './tabMessages.js'
import { type NotificationsClient, createNotificationsClient } from '../../client/createNotificationsClient.js'
import { createConfig } from '../../config/createConfig.js'
import { NotificationsObserver } from '../../observers/NotificationsObserver.js'
import type { NotificationEvent } from '../../stream/NotificationEvent.js'

// Tabs side by side in one Node process: real BroadcastChannel, real sockets to the simulators, and
// an in-process Web Locks (Node has none). The browser proof is examples/crosstab (Chromium).

const A = '0xAbC0000000000000000000000000000000000001' as const
const B = '0xAbC0000000000000000000000000000000000002' as const
let enigma: SolverSimulator
let rasa: SolverSimulator
let locks: FakeLocks
let tabs: NotificationsClient[] = []
let name = 0
beforeEach(async () => {
  ;[enigma, rasa] = await Promise.all([startSolverSimulator({ protocol: 'enigma' }), startSolverSimulator({ protocol: 'rasa' })])
  locks = new FakeLocks()
  name++
})
afterEach(async () => {
  for (const t of tabs) t.close()
  tabs = []
  vi.unstubAllGlobals()
  await Promise.all([enigma.close(), rasa.close()])
})

function openTab(withLocks = true, search: { timeoutMs?: number } = {}): NotificationsClient {
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 'beta',
        solvers: {
          alpha: { notifications: { protocol: 'enigma', url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
          beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } },
        },
      },
    },
  })
  // Each tab is its own Web Locks client, as each page is in a browser.
  if (withLocks) vi.stubGlobal('navigator', { locks: locks.forClient() })
  const tab = createNotificationsClient({ config, crossTab: { name: `t${name}` }, lingerMs: 0, reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, search })
  tabs.push(tab)
  return tab
}

async function until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
/** Tabs whose page visibility the test sets (each its own `document`). */
function openTabsWithVisibility(count: number): { docs: Array<{ visibilityState: 'visible' | 'hidden' }>; all: NotificationsClient[] } {
  const docs: Array<{ visibilityState: 'visible' | 'hidden' }> = []
  const all: NotificationsClient[] = []
  for (let i = 0; i < count; i++) {
    const doc = { visibilityState: 'visible' as 'visible' | 'hidden' }
    vi.stubGlobal('document', doc)
    docs.push(doc)
    all.push(openTab())
  }
  return { docs, all }
}
const ids = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification.id] : []))

it('3 tabs on the same 2 accounts and both protocols: one socket per socket key, every tab gets every notification', async () => {
  const all = [openTab(), openTab(), openTab()]
  const streams = all.flatMap((t) => [A, B].flatMap((account) => ['alpha', 'beta'].map((solverId) => record(t.events({ account, solverId: solverId as 'alpha' }, { resume: true })))))
  await Promise.all([enigma.waitForSubscribers(A), enigma.waitForSubscribers(B), rasa.waitForSubscribers(A), rasa.waitForSubscribers(B)])
  await until(() => all.every((t) => t.stats().crossTab !== undefined && t.stats().crossTab!.tabs === 3), 'three tabs to see each other')
  const published = [await enigma.instantOpen(A), await enigma.instantOpen(B), await rasa.instantOpen(A), await rasa.instantOpen(B)].flatMap((l) => l.frames.map((f) => f.id))
  await until(() => streams.every((s) => ids(s.values).length === 3), 'every stream to have its 3 frames')
  expect(enigma.connections().filter((c) => c.open)).toHaveLength(2)
  expect(rasa.connections().filter((c) => c.open)).toHaveLength(1)
  for (let t = 0; t < 3; t++) expect(streams.slice(t * 4, t * 4 + 4).flatMap((s) => ids(s.values)).sort()).toEqual([...published].sort())
  const roles = all.map((t) => t.stats().crossTab!.role)
  expect(roles.filter((r) => r === 'leader')).toHaveLength(1)
  for (const t of all) expect(t.stats().sockets).toBe(t.stats().crossTab!.role === 'leader' ? 3 : 0)
})

it('the leader tab closes while lifecycles are published: another leads, and every resume stream has every transition once', async () => {
  const all = [openTab(), openTab(), openTab()]
  const streams = all.map((t) => record(t.events({ account: A, solverId: 'alpha' }, { resume: true })))
  await enigma.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 3), 'three tabs')
  const leader = all.findIndex((t) => t.stats().crossTab!.role === 'leader')
  const frames: string[] = []
  for (let i = 0; i < 10; i++) {
    frames.push(...(await enigma.instantOpen(A)).frames.map((f) => f.id as string))
    if (i === 4) all[leader]!.close()
  }
  const rest = all.filter((_, i) => i !== leader)
  await until(() => rest.some((t) => t.stats().crossTab!.role === 'leader'), 'a new leader', 2_000)
  for (const [i, s] of streams.entries()) {
    if (i === leader) continue
    await until(() => ids(s.values).length >= 30, `tab ${i} to catch up`)
    expect([...ids(s.values)].sort()).toEqual([...frames].sort())
  }
})

it('a hidden leader hands the sockets to a visible tab while a rasa quote moves: it keeps serving until the new one does, every stream gets every transition once, in order', async () => {
  // rasa keeps only each quote's latest state: a transition published while no socket watched the
  // account would come back from history as that latest state alone. The new leader's socket is refused
  // while the quote moves, so only the old leader's socket sees the transitions.
  const { docs, all } = openTabsWithVisibility(3)
  const streams = all.flatMap((t) => [record(t.events({ account: A, solverId: 'beta' }, { resume: true })), record(t.events({ account: A, solverId: 'beta' }))])
  await rasa.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 3), 'three tabs')
  await until(() => streams.every((s) => s.values.some((e) => e.type === 'status' && e.status === 'open')), 'every stream served')
  const old = all.findIndex((t) => t.stats().crossTab!.role === 'leader')
  rasa.refuseSockets(true)
  docs[old]!.visibilityState = 'hidden'
  await until(() => all.some((t, i) => i !== old && t.stats().crossTab!.role === 'leader'), 'a visible tab to lead')
  const { frames } = await rasa.instantOpen(A)
  const published = frames.map((f) => f.id as string)
  expect(published.length).toBeGreaterThanOrEqual(3)
  rasa.refuseSockets(false)
  const done = () => streams.every((s) => published.every((id) => ids(s.values).includes(id)))
  await until(done, 'every stream to have every transition', 10_000).catch(() => undefined)
  for (const [i, s] of streams.entries()) expect({ stream: i, ids: ids(s.values) }).toEqual({ stream: i, ids: published })
  expect(all[old]!.stats().crossTab!.role).toBe('follower')
  // The old leader lets go once the new one serves every stream: one socket again.
  await until(() => all[old]!.stats().sockets === 0 && rasa.connections().filter((c) => c.open).length === 1, 'the old leader to let its socket go')
}, 30_000)

it.each(['alpha', 'beta'] as const)('solver %s: repeated handoffs while lifecycles are published: a live-only stream gets no notification twice', async (solverId) => {
  const sim = solverId === 'alpha' ? enigma : rasa
  const { docs, all } = openTabsWithVisibility(2)
  const streams = all.map((t) => record(t.events({ account: A, solverId })))
  await sim.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 2), 'two tabs')
  const leaderOf = () => all.findIndex((t) => t.stats().crossTab!.role === 'leader')
  for (let round = 0; round < 6; round++) {
    const old = leaderOf()
    // The leader hides, the other tab shows: the leader hands the sockets over on its next beat.
    docs[old]!.visibilityState = 'hidden'
    docs[1 - old]!.visibilityState = 'visible'
    const handed = () => all[1 - old]!.stats().crossTab!.role === 'leader' && all[old]!.stats().crossTab!.role === 'follower'
    // Published all through the handoff (both servers deliver for a moment), and a moment after.
    const deadline = Date.now() + 10_000
    while (!handed() && Date.now() < deadline) {
      await sim.instantOpen(A)
      await new Promise((r) => setTimeout(r, 20)) // the publisher's pace, not synchronisation
    }
    expect({ round, handed: handed() }).toEqual({ round, handed: true })
    for (let i = 0; i < 10; i++) {
      await sim.instantOpen(A)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  await sim.instantOpen(A)
  // A last lifecycle, delivered by both tabs: every copy a handoff carried arrived before it.
  const last = (await sim.instantOpen(A)).frames.map((f) => f.id as string)
  await until(() => streams.every((s) => last.every((id) => ids(s.values).includes(id))), 'the last lifecycle everywhere')
  for (const [i, s] of streams.entries()) {
    const seen = ids(s.values)
    const twice = seen.filter((id, at) => seen.indexOf(id) !== at)
    expect({ tab: i, twice }).toEqual({ tab: i, twice: [] })
  }
}, 60_000)

it('a late tab is connecting until the leader serves it, then gets the current status; a tab that unsubscribes releases only its share', async () => {
  const first = openTab()
  const a = record(first.status({ account: A, solverId: 'alpha' }))
  await until(() => a.values.at(-1) === 'open', 'open')
  const second = openTab()
  const b = record(second.status({ account: A, solverId: 'alpha' }))
  await until(() => b.values.at(-1) === 'open', 'the late tab to see open')
  // Nothing reaches it before the leader serves it (a resume stream backfills that stretch).
  expect(b.values).toEqual(['connecting', 'open'])
  const [leader, followerSub] = first.stats().crossTab!.role === 'leader' ? [first, b] : [second, a]
  expect(leader.stats().subscriptions).toBe(2) // its own stream and the one it serves for the other tab
  followerSub.subscription.unsubscribe()
  await until(() => leader.stats().subscriptions === 1, 'the follower’s share to be released')
  expect(enigma.connections().filter((c) => c.open)).toHaveLength(1)
})

it('notifyOnce runs the callback in one tab; a foreign or malformed message is dropped and counted', async () => {
  const all = [openTab(), openTab(), openTab()]
  const toasts: number[] = []
  const stops = all.map((t, i) => new NotificationsObserver(t, { account: A, solverId: 'beta', notifyOnce: true, onNotification: () => toasts.push(i) }).subscribe(() => {}))
  await rasa.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 3), 'three tabs')
  // Beats carry each tab's notifyOnce claims: wait until the tabs agree on one.
  const key = `${A.toLowerCase()}  beta`
  await until(() => all.filter((t) => t.crossTab!.isNotifier(key)).length === 1, 'one notifier')
  await rasa.instantOpen(A)
  await until(() => toasts.length >= 3, 'three toasts')
  await rasa.instantOpen(A) // frames arrive in order: a stray toast of the first lifecycle would come before these
  await until(() => toasts.length >= 6, 'six toasts')
  expect(toasts).toHaveLength(6)
  expect(new Set(toasts).size).toBe(1)
  for (const stop of stops) stop()

  const channel = new BroadcastChannel(tabNames(`t${name}`))
  channel.postMessage({ hello: 'world' })
  channel.postMessage({ v: TAB_PROTOCOL, t: 'n', tab: 'x', to: 'y', sid: 's', n: { type: 'evil' } })
  await until(() => all.every((t) => t.stats().crossTab!.dropped === 2), 'both dropped in every tab')
  channel.close()
})

it('outside a browser (no Web Locks) the option does nothing and says so once', () => {
  vi.unstubAllGlobals()
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const one = openTab(false)
  openTab(false)
  expect(warn.mock.calls.filter(([m]) => String(m).includes('crossTab'))).toHaveLength(1)
  expect(one.stats().crossTab).toBeUndefined()
  expect(one.crossTab).toBeUndefined()
  warn.mockRestore()
})

it('a frozen leader (silent, still holding the lock) is replaced: a follower takes the lock and its resume stream catches up', async () => {
  const all = [openTab(), openTab()]
  const streams = all.map((t) => record(t.events({ account: A, solverId: 'alpha' }, { resume: true })))
  await enigma.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 2), 'two tabs')
  const leader = all.findIndex((t) => t.stats().crossTab!.role === 'leader')
  const follower = 1 - leader
  const first = await enigma.instantOpen(A)
  await until(() => ids(streams[follower]!.values).length === 3, 'the first lifecycle')
  // Freeze the leader as a browser does: it stops running (no beats, no messages) but keeps the lock.
  const frozen = (all[leader]!.crossTab as unknown as { real: { channel: BroadcastChannel; wake: ReturnType<typeof setTimeout> } }).real
  clearTimeout(frozen.wake)
  frozen.channel.onmessage = null
  frozen.channel.close()
  // Published while nobody serves the follower: its resume stream recovers it after the takeover (enigma
  // history keeps every transition; rasa's only the latest state of a quote).
  const second = await enigma.instantOpen(A)
  await until(() => all[follower]!.stats().crossTab!.role === 'leader', 'the follower to take over', 10_000)
  const expected = [...first.frames, ...second.frames].map((f) => f.id)
  await until(() => ids(streams[follower]!.values).length >= 6, 'the second lifecycle')
  expect([...ids(streams[follower]!.values)].sort()).toEqual([...expected].sort())
}, 20_000)

it('a follower whose page froze 5 s (no beats, its messages queued) gets every notification afterwards: the leader keeps serving a silent tab that still holds its lock', async () => {
  const all = [openTab(), openTab()]
  const streams = all.map((t) => record(t.events({ account: A, solverId: 'alpha' })))
  await enigma.waitForSubscribers(A)
  await until(() => all.every((t) => t.stats().crossTab?.tabs === 2), 'two tabs')
  const leader = all.findIndex((t) => t.stats().crossTab!.role === 'leader')
  const follower = 1 - leader
  await until(() => streams[follower]!.values.some((e) => e.type === 'status' && e.status === 'open'), 'the follower served')
  // Freeze the follower as a browser does: no script runs (no beats), what the channel brings waits
  // until it wakes, and it keeps its locks.
  const frozen = (all[follower]!.crossTab as unknown as { real: { channel: BroadcastChannel; wake: ReturnType<typeof setTimeout>; tick(): void } }).real
  const hear = frozen.channel.onmessage!
  const queued: MessageEvent[] = []
  frozen.channel.onmessage = (event: MessageEvent) => void queued.push(event)
  clearTimeout(frozen.wake)
  await until(() => all[leader]!.stats().crossTab!.tabs === 1, 'the leader to hear nothing of the follower', 10_000)
  await new Promise((r) => setTimeout(r, 1_500)) // the rest of the 5 s freeze (the scenario's own time)
  // It wakes: what was queued arrives, its beat runs again.
  frozen.channel.onmessage = hear
  for (const event of queued) hear.call(frozen.channel, event)
  frozen.tick()
  await until(() => all[leader]!.stats().crossTab!.tabs === 2, 'the leader to hear the follower again')
  const published: string[] = []
  for (let i = 0; i < 10; i++) published.push(...(await enigma.instantOpen(A)).frames.map((f) => f.id as string))
  await until(() => ids(streams[leader]!.values).length === 30, 'the leader to deliver 30')
  await until(() => published.every((id) => ids(streams[follower]!.values).includes(id)), 'the follower to deliver all 30', 5_000).catch(() => undefined)
  expect({ delivered: ids(streams[follower]!.values).filter((id) => published.includes(id as string)).length, status: streams[follower]!.values.filter((e) => e.type === 'status').at(-1)?.status }).toEqual({ delivered: 30, status: 'open' })
}, 30_000)

it('forged channel messages from a same-origin page change nothing: foreign notifications, fake leaders, closes, errors and byes are dropped and counted', async () => {
  const spy = new BroadcastChannel(tabNames(`t${name}`))
  const seen: Array<Record<string, unknown>> = []
  spy.onmessage = (event) => seen.push(event.data)
  const [first, second] = [openTab(), openTab()]
  // A tab joins on its first stream (the pool is lazy, like sockets): both subscribe.
  const both = [first, second].map((t) => record(t.events({ account: A, solverId: 'beta' })))
  await until(() => [first, second].some((t) => t.stats().crossTab?.role === 'leader') && first.stats().crossTab!.tabs === 2 && second.stats().crossTab!.tabs === 2, 'a leader')
  const follower = first.stats().crossTab!.role === 'follower' ? first : second
  const events = both[follower === first ? 0 : 1]!
  await rasa.waitForSubscribers(A)
  await until(() => seen.some((m) => m.t === 'sub'), 'the follower’s sub message')
  const sub = seen.find((m) => m.t === 'sub')! as { tab: string; to: string; sid: string }
  const leaderId = sub.to
  await until(() => events.values.some((e) => e.type === 'status' && e.status === 'open'), 'open')
  const dropsBefore = follower.stats().crossTab!.dropped

  const other = (await rasa.instantOpen(B)).frames[0]!
  const forged = { type: 'success', phase: 'open', quoteId: other.quote_id, tempQuoteId: null, onChain: true, lastSeenAction: 'InstantRFQ', actionStatus: 'success', account: B, counterpartyAddress: B, stateType: null, failureType: null, failureMessage: null, errorCode: null, filledAmountOpen: null, filledAmountClose: null, avgPriceOpen: null, avgPriceClose: null, orderType: null, version: null, vaAddress: null, createTime: null, modifyTime: null, id: 'forged', protocol: 'rasa', chainId: 1, solverId: 'beta', source: 'live', raw: {} }
  // 1. the leader's id, the follower's stream, another account's notification
  spy.postMessage({ v: TAB_PROTOCOL, t: 'n', tab: leaderId, to: sub.tab, sid: sub.sid, n: forged })
  // 2. the same account, but another solver or chain
  spy.postMessage({ v: TAB_PROTOCOL, t: 'n', tab: leaderId, to: sub.tab, sid: sub.sid, n: { ...forged, account: A, solverId: 'alpha', protocol: 'enigma' } })
  // 3. a fake leader announces itself and beats, then closes the stream and reports an error
  spy.postMessage({ v: TAB_PROTOCOL, t: 'leader', tab: 'evil' })
  spy.postMessage({ v: TAB_PROTOCOL, t: 'beat', tab: 'evil', visible: true, leader: true, once: [] })
  spy.postMessage({ v: TAB_PROTOCOL, t: 'e', tab: 'evil', to: sub.tab, sid: sub.sid, e: { type: 'status', status: 'closed', attempt: 0 } })
  spy.postMessage({ v: TAB_PROTOCOL, t: 'c', tab: 'evil', to: sub.tab, sid: sub.sid })
  // 4. the real leader "says" goodbye and hands over (it did neither)
  spy.postMessage({ v: TAB_PROTOCOL, t: 'bye', tab: leaderId })
  spy.postMessage({ v: TAB_PROTOCOL, t: 'handoff', tab: 'evil', to: sub.tab })
  await until(() => follower.stats().crossTab!.dropped >= dropsBefore + 5, 'the forgeries to be dropped')

  const open = await rasa.instantOpen(A)
  await until(() => ids(events.values).length === 3, 'the real lifecycle')
  expect(ids(events.values)).toEqual(open.frames.map((f) => f.id))
  expect(events.completed).toBe(false)
  const statuses = events.values.flatMap((e) => (e.type === 'status' ? [e.status] : []))
  expect(statuses.filter((s) => s === 'reconnecting' || s === 'closed')).toEqual([])
  expect(events.values.filter((e) => e.type === 'error')).toEqual([])
  expect(follower.stats().crossTab!.role).toBe('follower')
  expect(rasa.connections().filter((c) => c.open)).toHaveLength(1)
  spy.close()
})

it('a tab joins on its first stream: a client made and never used (React StrictMode runs memo functions twice) loads, beats and locks nothing', async () => {
  const used = openTab()
  openTab() // made, never subscribed
  const events = record(used.events({ account: A, solverId: 'beta' }))
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  const { held } = await locks.query()
  expect(held.filter((l) => l.name.includes(':alive:'))).toHaveLength(1)
  expect(used.stats().crossTab).toMatchObject({ role: 'leader', tabs: 1 })
})

describe.each(['alpha', 'beta'] as const)('one history reader per stream key per browser (solver %s)', (solverId) => {
  const simOf = () => (solverId === 'alpha' ? enigma : rasa)
  // What history gives back of a lifecycle stored while nobody listened: enigma keeps every transition, rasa the latest state.
  const recoverable = (frames: SimulatorFrame[]) => (solverId === 'alpha' ? frames : frames.slice(-1)).map((f) => f.id as string)
  const finished = (events: NotificationEvent[]) => events.filter((e) => e.type === 'status' && e.backfill !== undefined && e.backfill.state !== 'started').length

  it('a socket drop: every tab backfills, but history is read once, and each tab delivers what was missed once', async () => {
    const sim = simOf()
    const all = [openTab(), openTab(), openTab()]
    const streams = all.map((t) => record(t.events({ account: A, solverId }, { resume: true })))
    await sim.waitForSubscribers(A)
    await until(() => all.every((t) => t.stats().crossTab?.tabs === 3), 'three tabs')
    // The first open's backfills are done in every tab.
    await until(() => streams.every((s) => finished(s.values) >= 1), 'the first backfills')
    const before = sim.httpRequests().length
    const done = streams.map((s) => finished(s.values))
    sim.refuseSockets()
    await sim.dropAll(1012)
    const missed = recoverable((await sim.instantOpen(A)).frames)
    sim.refuseSockets(false)
    await until(() => streams.every((s, i) => finished(s.values) > done[i]!), 'a backfill in every tab after the drop')
    await until(() => streams.every((s) => missed.every((id) => ids(s.values).includes(id))), 'every tab to deliver what was missed')
    // One read for the three tabs' streams of the key (each backfill is one page here).
    expect(sim.httpRequests().length - before).toBe(1)
    for (const s of streams) expect(ids(s.values).filter((id) => missed.includes(id as string))).toEqual(missed)
  }, 20_000)

  it("a follower's continuity follows the leader's socket: catching-up at the drop (no frame needed), then what its backfill brought (rasa: latest states only), as the leader's", async () => {
    const sim = simOf()
    const all = [openTab(), openTab()]
    const streams = all.map((t) => record(t.events({ account: A, solverId }, { resume: { verify: false } })))
    await sim.waitForSubscribers(A)
    await until(() => all.every((t) => t.stats().crossTab?.tabs === 2), 'two tabs')
    const said = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'continuity' ? [`${e.continuity.state}${e.continuity.reason ? ` ${e.continuity.reason}` : ''}`] : []))
    await until(() => streams.every((s) => said(s.values).at(-1) === 'complete'), 'both tabs complete')
    expect(all.map((t) => t.stats().crossTab?.role).sort()).toEqual(['follower', 'leader'])
    const before = streams.map((s) => said(s.values).length)
    sim.refuseSockets()
    await sim.dropAll(1012)
    // Redials refused: nothing comes, yet both tabs say it.
    await until(() => streams.every((s) => said(s.values).slice(before[streams.indexOf(s)]).includes('catching-up socket-down')), 'both tabs catching up')
    for (const s of streams) expect(said(s.values).at(-1)).toBe('catching-up socket-down')
    const missed = recoverable((await sim.instantOpen(A)).frames)
    sim.refuseSockets(false)
    // After the backfill: complete on enigma; a rasa notification stream cannot claim the transitions before a latest state.
    const ended = solverId === 'alpha' ? 'complete' : 'incomplete latest-state-only'
    await until(() => streams.every((s) => missed.every((id) => ids(s.values).includes(id)) && said(s.values).at(-1) === ended), 'both tabs to end the backfill with what was missed')
    const after = streams.map((s, i) => said(s.values).slice(before[i]))
    for (const values of after) {
      expect(values[0]).toBe('catching-up socket-down')
      expect(values.at(-1)).toBe(ended)
      expect(values.filter((v) => v.startsWith('incomplete'))).toEqual(solverId === 'beta' ? [ended] : [])
    }
    // The follower said what the leader said.
    expect(after[1]).toEqual(after[0])
  }, 20_000)

  it('polling while sockets are refused: the leader reads for every tab (polls of the key share its reads)', async () => {
    const sim = simOf()
    sim.refuseSockets()
    const all = [openTab(), openTab(), openTab()]
    const streams = all.map((t) => record(t.events({ account: A, solverId }, { resume: { poll: { afterMs: 50, intervalMs: 300 } } })))
    await until(() => all.every((t) => t.stats().crossTab?.tabs === 3), 'three tabs')
    const stored = recoverable((await sim.instantOpen(A)).frames)
    await until(() => streams.every((s) => stored.every((id) => ids(s.values).includes(id))), 'every tab to deliver the stored lifecycle from history')
    const base = sim.httpRequests().length
    const polled = streams.reduce((sum, s) => sum + finished(s.values), 0)
    await until(() => streams.reduce((sum, s) => sum + finished(s.values), 0) >= polled + 15, '15 more polls across the tabs')
    const polls = streams.reduce((sum, s) => sum + finished(s.values), 0) - polled
    const reads = sim.httpRequests().length - base
    // Each tab reading for itself makes one request per poll; one reader per browser about a third.
    expect(reads / polls).toBeLessThan(0.6)
    for (const s of streams) expect(ids(s.values).filter((id) => stored.includes(id as string))).toEqual(stored)
  }, 20_000)
})

describe('old and new tabs side by side, and a leader that drops what it does not know', () => {
  // A page of the previous release (tab protocol 1: no history reads between tabs) and a page of this
  // one, one origin: the old leader dropped the new tab's `hq` as foreign and the new tab waited for
  // ever, every live frame held (0 of 3 delivered).

  it('a leader of tab protocol 1 holding its lock: the new tab does not share with it, keeps its own socket and delivers everything', async () => {
    // The old release's leader, as its lock and channel named it (no version), beating as leader and
    // answering nothing it receives.
    const old = locks.forClient()
    const lockName = `solver-notifications:t${name}`
    const oldId = 'old-release-tab'
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    void old.request(lockName, {}, () => held)
    void old.request(`${lockName}:alive:${oldId}`, {}, () => held)
    void old.request(`${lockName}:leader:${oldId}`, {}, () => held)
    const oldChannel = new BroadcastChannel(lockName)
    const beat = setInterval(() => oldChannel.postMessage({ v: 1, t: 'beat', tab: oldId, visible: true, leader: true, once: [] }), 200)
    oldChannel.postMessage({ v: 1, t: 'leader', tab: oldId })
    try {
      const tab = openTab()
      const events = record(tab.events({ account: A, solverId: 'alpha' }, { resume: true }))
      await enigma.waitForSubscribers(A)
      const published = (await enigma.instantOpen(A)).frames.map((f) => f.id as string)
      await until(() => published.every((id) => ids(events.values).includes(id)), 'the new tab to deliver all 3 frames')
      expect(tab.stats().crossTab).toMatchObject({ role: 'leader', tabs: 1 })
      expect(tab.stats().sockets).toBe(1)
    } finally {
      clearInterval(beat)
      oldChannel.close()
      release()
    }
  })

  /** A tab whose channel drops the messages of these kinds (a leader that does not know them). */
  function deafTab(kinds: string[]): NotificationsClient {
    const Real = BroadcastChannel
    class Deaf extends Real {
      override set onmessage(handler: ((event: MessageEvent) => void) | null) {
        super.onmessage = handler && ((event: MessageEvent) => (kinds.includes((event.data as { t?: string })?.t ?? '') ? undefined : handler(event)))
      }
      override get onmessage() {
        return super.onmessage
      }
    }
    vi.stubGlobal('BroadcastChannel', Deaf)
    return openTab()
  }

  it.each(['alpha', 'beta'] as const)('solver %s: a same-version leader that drops history reads (hq): the follower reads itself after the deadline and delivers every frame', async (solverId) => {
    const sim = solverId === 'alpha' ? enigma : rasa
    const leader = deafTab(['hq'])
    const own = record(leader.events({ account: B, solverId }))
    await until(() => leader.stats().crossTab?.role === 'leader' && own.values.some((e) => e.type === 'status' && e.status === 'open'), 'the deaf tab to lead')
    vi.stubGlobal('BroadcastChannel', globalThis.BroadcastChannel)
    // search.timeoutMs 300: the follower waits 2 × 300 + 1,000 ms for an answer.
    const follower = openTab(true, { timeoutMs: 300 })
    const events = record(follower.events({ account: A, solverId }, { resume: true }))
    await sim.waitForSubscribers(A)
    await until(() => follower.stats().crossTab?.role === 'follower', 'a follower')
    const published = (await sim.instantOpen(A)).frames.map((f) => f.id as string)
    await until(() => published.every((id) => ids(events.values).includes(id)), 'the follower to deliver what was published')
    expect(follower.stats().crossTab!.fallbacks).toBeGreaterThanOrEqual(1)
    expect(follower.stats().sockets).toBe(0)
  })

  it('a same-version leader that drops a stream (sub): the follower serves it itself after the deadline, with its own socket', async () => {
    const leader = deafTab(['sub'])
    const own = record(leader.events({ account: B, solverId: 'alpha' }))
    await until(() => leader.stats().crossTab?.role === 'leader' && own.values.some((e) => e.type === 'status' && e.status === 'open'), 'the deaf tab to lead')
    vi.stubGlobal('BroadcastChannel', globalThis.BroadcastChannel)
    const follower = openTab()
    const events = record(follower.events({ account: A, solverId: 'alpha' }, { resume: true }))
    await until(() => follower.stats().crossTab?.fallbacks === 1, 'the follower to serve the stream itself')
    await enigma.waitForSubscribers(A)
    const published = (await enigma.instantOpen(A)).frames.map((f) => f.id as string)
    await until(() => published.every((id) => ids(events.values).includes(id)), 'the follower to deliver what was published')
    expect(follower.stats()).toMatchObject({ sockets: 1, crossTab: { role: 'follower', fallbacks: 1 } })
    follower.close()
    expect(follower.stats().timers).toBe(0)
  })
})
