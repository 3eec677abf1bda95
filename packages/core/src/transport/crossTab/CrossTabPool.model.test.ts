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
let locks: FakeLocks
let run = 0
beforeAll(async () => {
  sim = await startSolverSimulator({ protocol: 'enigma' })
})
afterAll(() => sim.close())

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
