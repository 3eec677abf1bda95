import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { FakeLocks } from '../../../test/FakeLocks.js'
import { type NotificationsClient, createNotificationsClient } from '../../client/createNotificationsClient.js'
import { createConfig } from '../../config/createConfig.js'
import type { NotificationEvent } from '../../stream/NotificationEvent.js'

/**
 * Cross-tab against a model, over random interleavings (fast-check) of every source of events: tabs
 * join (a new page with a resume stream) and leave (closed: the leader too, often mid-backfill), the
 * socket drops (history then read by the leader for every tab), transitions are published (while the
 * socket is up or down) and time passes. Real BroadcastChannel, real sockets and HTTP to the simulator,
 * in-process Web Locks. Some tabs are deaf: they drop every history read asked of them, as a leader
 * that does not know the message would (a follower must read itself after its deadline, never wait for
 * ever). The model's promise: once the dust settles, every tab still open has delivered
 * every transition stored after its stream subscribed, none twice, and nothing that was never published.
 */

let sim: SolverSimulator
let rasa: SolverSimulator
let locks: FakeLocks
let run = 0
beforeAll(async () => {
  ;[sim, rasa] = await Promise.all([startSolverSimulator({ protocol: 'enigma' }), startSolverSimulator({ protocol: 'rasa' })])
})
afterAll(() => Promise.all([sim.close(), rasa.close()]))

type Action = { kind: 'join'; deaf: boolean } | { kind: 'leave'; which: number } | { kind: 'drop' } | { kind: 'publish'; down: boolean } | { kind: 'wait'; ms: number }
const action: fc.Arbitrary<Action> = fc.oneof(
  // deaf: a tab that drops history reads asked of it (`hq`), as a leader of another release would
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('join' as const), deaf: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('leave' as const), which: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('publish' as const), down: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 5, max: 150 }) }) },
)

interface Tab {
  client: NotificationsClient
  ids: string[]
  /** what was stored before its stream subscribed (it may, but need not, deliver it) */
  before: Set<string>
}

/** Once the tab's pool has loaded, its channel drops every history read asked of it (`hq`). */
function deafen(client: NotificationsClient): void {
  const pool = () => (client.crossTab as unknown as { real?: { channel?: BroadcastChannel } }).real?.channel
  const wrap = () => {
    const channel = pool()
    if (!channel?.onmessage) {
      setTimeout(wrap, 1)
      return
    }
    const hear = channel.onmessage
    channel.onmessage = (event: MessageEvent) => ((event.data as { t?: string })?.t === 'hq' ? undefined : hear.call(channel, event))
  }
  wrap()
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)) // the interleaving's own time, not synchronisation

async function scenario(actions: Action[], firstDeaf: boolean): Promise<string | undefined> {
  run++
  locks = new FakeLocks()
  // An account of its own per run: the simulator (shared by the runs) keeps every run's history.
  const A = `0x${run.toString(16).padStart(40, '0')}` as const
  const config = createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } },
  })
  const published: string[] = []
  const tabs: Tab[] = []
  const closed: NotificationsClient[] = []
  const join = (deaf = false) => {
    vi.stubGlobal('navigator', { locks: locks.forClient() })
    // search.timeoutMs 1,000: a follower waits 3 s for the leader's answer to a history read.
    const client = createNotificationsClient({ config, crossTab: { name: `model-${run}` }, lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 40 }, search: { timeoutMs: 1_000 } })
    const tab: Tab = { client, ids: [], before: new Set(published) }
    client.events({ account: A }, { resume: true }).subscribe((e: NotificationEvent) => {
      if (e.type === 'notification' && e.notification.id) tab.ids.push(e.notification.id)
    })
    tabs.push(tab)
    if (deaf) deafen(client)
  }
  const publish = async () => {
    const { frames } = await sim.instantOpen(A)
    published.push(...frames.map((f) => f.id as string))
  }
  join(firstDeaf)
  try {
    for (const a of actions) {
      switch (a.kind) {
        case 'join':
          if (tabs.length < 4) join(a.deaf)
          break
        case 'leave':
          if (tabs.length > 1) {
            const [gone] = tabs.splice(a.which % tabs.length, 1)
            gone!.client.close()
            closed.push(gone!.client)
          }
          break
        case 'drop':
          await sim.dropAll(1012)
          break
        case 'publish':
          if (a.down) {
            // Stored while the socket is refused: only history has it.
            sim.refuseSockets()
            await sim.dropAll(1012)
            await publish()
            sim.refuseSockets(false)
          } else await publish()
          break
        case 'wait':
          await pause(a.ms)
          break
      }
    }
    sim.refuseSockets(false)
    // The dust settles: every tab open has every transition stored after it subscribed.
    const missing = () => tabs.flatMap((tab, i) => published.filter((id) => !tab.before.has(id) && !tab.ids.includes(id)).map((id) => `tab ${i}: ${id}`))
    const deadline = Date.now() + 15_000
    while (missing().length > 0 && Date.now() < deadline) await pause(25)
    if (missing().length > 0) return `missing ${missing().slice(0, 10).join(', ')}`
    for (const [i, tab] of tabs.entries()) {
      const twice = tab.ids.filter((id, k) => tab.ids.indexOf(id) !== k)
      if (twice.length) return `tab ${i} delivered ${twice.join(', ')} twice`
      const foreign = tab.ids.filter((id) => !published.includes(id))
      if (foreign.length) return `tab ${i} delivered ${foreign.join(', ')}, never published`
    }
    return undefined
  } finally {
    for (const tab of tabs) tab.client.close()
    vi.unstubAllGlobals()
    sim.refuseSockets(false)
  }
}

it('cross-tab: every tab delivers every transition once, over random joins, leaves (the leader too), drops and publishes while up or down', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 14 }), fc.boolean(), async (actions, firstDeaf) => {
      expect(await scenario(actions, firstDeaf)).toBeUndefined()
    }),
    { numRuns: Number(process.env.CROSSTAB_MODEL_RUNS ?? 12), seed: process.env.CROSSTAB_MODEL_SEED ? Number(process.env.CROSSTAB_MODEL_SEED) : undefined, endOnFailure: true },
  )
}, 300_000)

/**
 * Handoffs on rasa, whose history keeps only each quote's latest state (a transition published while
 * no socket watched the account is gone for good, silently): tabs join, become hidden or visible (a
 * hidden leader hands the sockets to a visible tab on its next beat), new sockets are refused for a
 * while (the new leader's dial is slow) and quotes move. No tab closes and no socket drops here: those
 * lose the old socket with the old leader, which no handoff can help on rasa. The promise: every tab
 * delivers every transition published after its stream was first served (`open`), once.
 */
type RasaAction = { kind: 'join' } | { kind: 'hide' | 'show'; which: number } | { kind: 'hide-leader' } | { kind: 'refuse'; on: boolean } | { kind: 'publish' } | { kind: 'wait'; ms: number }
const rasaAction: fc.Arbitrary<RasaAction> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'join' as const }) },
  // hidden more often than shown: a hidden leader with a visible tab beside it is what hands off
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('hide' as const, 'hide' as const, 'show' as const), which: fc.nat(3) }) },
  // the user leaves the tab that holds the sockets
  { weight: 3, arbitrary: fc.constant({ kind: 'hide-leader' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refuse' as const), on: fc.constantFrom(true, true, false) }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'publish' as const }) },
  // a moment, or past the next beat (a hidden leader hands off on its beat)
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 5, max: 300 }), fc.integer({ min: 1_000, max: 1_500 })) }) },
)

async function rasaScenario(actions: RasaAction[], initialTabs: number): Promise<string | undefined> {
  run++
  locks = new FakeLocks()
  const A = `0x${(0x100000 + run).toString(16).padStart(40, '0')}` as const
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } } } } } })
  /** each lifecycle's transitions, by the order it was started in */
  const lifecycles: string[][] = []
  let started = 0
  const tabs: Array<{ client: NotificationsClient; ids: string[]; doc: { visibilityState: 'visible' | 'hidden' }; firstOwed: number }> = []
  const join = () => {
    vi.stubGlobal('navigator', { locks: locks.forClient() })
    const doc = { visibilityState: 'visible' as 'visible' | 'hidden' }
    vi.stubGlobal('document', doc)
    const client = createNotificationsClient({ config, crossTab: { name: `rasa-model-${run}` }, lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 40 }, search: { timeoutMs: 1_000 } })
    // Owed: the lifecycles started after its stream was first served (`open`); none until then.
    const tab = { client, ids: [] as string[], doc, firstOwed: Number.POSITIVE_INFINITY }
    client.events({ account: A }, { resume: true }).subscribe((e: NotificationEvent) => {
      if (e.type === 'status' && e.status === 'open' && tab.firstOwed === Number.POSITIVE_INFINITY) tab.firstOwed = started
      if (e.type === 'notification' && e.notification.id) tab.ids.push(e.notification.id)
    })
    tabs.push(tab)
  }
  for (let i = 0; i < initialTabs; i++) join()
  try {
    // The first tabs are served before anything happens (a page open for a while), so the first
    // actions do not all fall before any service.
    const settled = Date.now() + 5_000
    while (tabs.some((tab) => tab.firstOwed === Number.POSITIVE_INFINITY) && Date.now() < settled) await pause(10)
    for (const a of actions) {
      switch (a.kind) {
        case 'join':
          if (tabs.length < 4) join()
          break
        case 'hide':
        case 'show':
          tabs[a.which % tabs.length]!.doc.visibilityState = a.kind === 'hide' ? 'hidden' : 'visible'
          break
        case 'hide-leader':
          for (const tab of tabs) if (tab.client.stats().crossTab?.role === 'leader') tab.doc.visibilityState = 'hidden'
          break
        case 'refuse':
          rasa.refuseSockets(a.on)
          break
        case 'publish': {
          const k = started++
          lifecycles[k] = (await rasa.instantOpen(A)).frames.map((f) => f.id as string)
          break
        }
        case 'wait':
          await pause(a.ms)
          break
      }
    }
    rasa.refuseSockets(false)
    const published = lifecycles.flat()
    const missing = () =>
      tabs.flatMap((tab, i) =>
        tab.firstOwed === Number.POSITIVE_INFINITY
          ? [`tab ${i}: never served`]
          : lifecycles.slice(tab.firstOwed).flat().filter((id) => !tab.ids.includes(id)).map((id) => `tab ${i}: ${id}`),
      )
    const deadline = Date.now() + 15_000
    while (missing().length > 0 && Date.now() < deadline) await pause(25)
    if (missing().length > 0) return `missing ${missing().slice(0, 10).join(', ')}`
    for (const [i, tab] of tabs.entries()) {
      const twice = tab.ids.filter((id, k) => tab.ids.indexOf(id) !== k)
      if (twice.length) return `tab ${i} delivered ${twice.join(', ')} twice`
      const foreign = tab.ids.filter((id) => !published.includes(id))
      if (foreign.length) return `tab ${i} delivered ${foreign.join(', ')}, never published`
    }
    return undefined
  } finally {
    for (const tab of tabs) tab.client.close()
    vi.unstubAllGlobals()
    rasa.refuseSockets(false)
  }
}

it('cross-tab on rasa: every tab delivers every transition once, over random joins, tabs hidden and shown (handoffs), slow dials and publishes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(rasaAction, { minLength: 4, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), async (actions, initialTabs) => {
      expect(await rasaScenario(actions, initialTabs)).toBeUndefined()
    }),
    { numRuns: Number(process.env.CROSSTAB_MODEL_RUNS ?? 12), seed: process.env.CROSSTAB_MODEL_SEED ? Number(process.env.CROSSTAB_MODEL_SEED) : undefined, endOnFailure: true },
  )
}, 300_000)
