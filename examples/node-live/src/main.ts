import { type Address, type Notification, type NotificationEvent, createConfig, createNotificationsClient, memoryCheckpoints } from '@solver-notifications/core'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { filter, firstValueFrom } from 'rxjs'

// Two solvers of different protocols on one chain, each backed by a local simulator.
const enigma = await startSolverSimulator({ protocol: 'enigma', channel: 'Arbitrum_Solver_Demo' })
const rasa = await startSolverSimulator({ protocol: 'rasa' })
const config = createConfig({
  defaultChainId: 42161,
  chains: {
    42161: {
      defaultSolver: 'alpha',
      solvers: {
        alpha: { notifications: { protocol: 'enigma', url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
        beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } },
      },
    },
  },
})
const client = createNotificationsClient({ config, reconnect: { baseDelayMs: 300 } })

const watched: Array<{ account: Address; solverId: 'alpha' | 'beta' }> = [
  { account: '0xAbC0000000000000000000000000000000000001', solverId: 'alpha' },
  { account: '0x00000000000000000000000000000000000000bB', solverId: 'beta' },
  { account: '0x5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C5C', solverId: 'beta' },
]
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`
const protocolOf = { alpha: 'enigma', beta: 'rasa' } as const
/** This machine's clock when the line is printed (the solvers' own timestamps differ per account). */
const clock = () => new Date().toISOString().slice(11, 23)
/** Which solver and account a line is about: `alpha·enigma 0xAbC0…0001`. */
const about = (solverId: string, account: string) => `${solverId}·${protocolOf[solverId as keyof typeof protocolOf]} ${short(account)}`
const line = (n: Notification) => {
  const quote = n.onChain ? `quote ${n.quoteId}` : `temp ${n.quoteId}`
  const failure = n.failureType ? ` (${n.failureType}${n.errorCode === null ? '' : ` #${n.errorCode}`})` : ''
  return `${clock()}   ${about(n.solverId, n.account)} ${quote} ${n.lastSeenAction} → ${n.type}, phase ${n.phase}${failure}${n.source === 'backfill' ? ' [backfill]' : ''}`
}
const print = (solverId: string, account: string) => (event: NotificationEvent) => {
  if (event.type === 'notification') console.log(line(event.notification))
  else if (event.type === 'error') console.log(`${clock()} ! ${about(solverId, account)} ${event.error.code}: ${event.error.message}`)
  // Whether what the stream delivered is whole: synced, syncing or reload (docs/guide/continuity.md).
  else if (event.type === 'continuity') {
    const { state, reason } = event.continuity
    console.log(`${clock()} ◦ ${about(solverId, account)} ${state === 'complete' ? 'synced' : state === 'catching-up' ? 'syncing' : 'reload'} (${state}${reason ? `: ${reason}` : ''})`)
  } else if (event.backfill) {
    if (event.backfill.state !== 'started') console.log(`${clock()} • ${about(solverId, account)} backfill recovered ${event.backfill.recovered} notification(s) the live stream did not have`)
  } else {
    const detail = [
      event.attempt ? `attempt ${event.attempt}` : '',
      event.retryInMs !== undefined ? `retry in ${event.retryInMs} ms` : '',
      event.closeCode !== undefined ? `close ${event.closeCode}` : '',
    ].filter(Boolean)
    console.log(`${clock()} • ${about(solverId, account)} ${event.status}${detail.length ? ` (${detail.join(', ')})` : ''}`)
  }
}

const simOf = { alpha: enigma, beta: rasa }
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
// Where each stream's position is kept; a browser would use webStorageCheckpoints() (localStorage).
const checkpoint = memoryCheckpoints()

console.log(`How to read this demo:
  alpha speaks the enigma protocol (a socket per account, every transition kept in history); beta speaks rasa
  (one hub socket for many accounts, the latest state of each quote kept). A quote has a temporary id (temp -1)
  until it is on chain (quote 1000). "InstantRFQ → success, phase open" is the solver's action, its outcome and
  the lifecycle phase. [backfill] marks what was recovered from history after a gap; "•" lines are socket states.
  Times are this machine's clock when each line was printed.
`)
console.log('— first load: the app reads history, then subscribes from the time of that snapshot —')
const snapshotAt = Math.floor(Date.now() / 1000)
const snapshot = await client.search({ solverId: 'alpha', account: watched[0]!.account })
console.log(`snapshot: ${snapshot.total} stored documents; two lifecycles are published before the app subscribes`)
await enigma.instantOpen(watched[0]!.account)
await rasa.instantOpen(watched[1]!.account)
// resume: the first subscription backfills from the snapshot (nothing between the two is lost),
// every reconnect backfills what was missed, and positions are kept in the checkpoint store.
const subscribe = (c: typeof client) =>
  watched.map(({ account, solverId }) => c.events({ account, solverId }, { resume: { since: snapshotAt, checkpoint } }).subscribe(print(solverId, account)))
let subscriptions = subscribe(client)
// `open` means the subscribe frame was sent; wait until each simulator has it before publishing.
for (const { account, solverId } of watched) await simOf[solverId].waitForSubscribers(account)
await pause(300) // let the first-load backfills print before the live section starts

const quotes = new Map<string, number>()
async function step(round: number) {
  for (const { account, solverId } of watched) {
    const sim = simOf[solverId]
    const open = quotes.get(account)
    if (open !== undefined) {
      await sim.closeRequest(open)
      quotes.delete(account)
    } else if (round % 3 === 2) {
      await sim.fail(account, { failureType: 'INSUFFICIENT_MARGIN', errorCode: 1203 })
    } else {
      quotes.set(account, (await sim.instantOpen(account)).quoteId)
    }
  }
}

console.log('— live notifications —')
// Paced so a person can follow it; the whole demo takes a few seconds.
for (let round = 0; round < 3; round++) {
  await step(round)
  await pause(300)
}
console.log('— the simulators drop every connection; one round is published while the client is away —')
await Promise.all([enigma.dropAll(1012), rasa.dropAll(1012)])
await step(3)
for (const { account, solverId } of watched) await (solverId === 'alpha' ? enigma : rasa).waitForSubscribers(account)
await pause(500)
for (let round = 4; round < 6; round++) {
  await step(round)
  await pause(300)
}

console.log('— reload: the page goes away, one round is published, a new client resumes from the checkpoints —')
for (const s of subscriptions) s.unsubscribe()
client.close()
while (enigma.connections().length + rasa.connections().length > 0) await pause(20) // the old page's sockets are gone
await step(6)
const reloaded = createNotificationsClient({ config, reconnect: { baseDelayMs: 300 } })
subscriptions = watched.map(({ account, solverId }) => reloaded.events({ account, solverId }, { resume: { checkpoint } }).subscribe(print(solverId, account)))
for (const { account, solverId } of watched) await simOf[solverId].waitForSubscribers(account)
await step(7)
await pause(500)

console.log('— search —')
const history = await reloaded.search({ solverId: 'alpha', account: watched[0]!.account, size: 5 })
console.log(`enigma: ${history.total} stored documents for ${short(watched[0]!.account)}, newest ${history.rows.length}:`)
for (const row of history.rows) console.log(`  ${row.data.last_seen_action} ${row.data.action_status} quote ${row.primary_identifier}`)
const states = await reloaded.search({ solverId: 'beta', account: watched[1]!.account })
console.log(`rasa: ${states.count} position states for ${short(watched[1]!.account)}:`)
for (const row of states.rows) console.log(`  quote ${row.quote_id} ${row.last_seen_action} ${row.action_status}`)

console.log('— quote book: one row per quote, joined from history and live —')
const book = await firstValueFrom(reloaded.quotes({ account: watched[0]!.account, solverId: 'alpha' }).pipe(filter((b) => b.ready)))
for (const q of book.quotes) console.log(`  ${q.quoteId !== null ? `quote ${q.quoteId}` : `temp ${q.tempQuoteId}`} ${q.status}, ${q.transitions.length} transitions`)
// A close whose fill the solver never announces on the socket (it only reaches history): waitFor chases it.
const opened = await rasa.instantOpen(watched[1]!.account)
const waiting = reloaded.waitFor({ account: watched[1]!.account, solverId: 'beta', quoteId: opened.quoteId }, { until: 'closed', timeoutMs: 15_000 })
const at = rasa.tick()
const closing = { quote_id: opened.quoteId, temp_quote_id: opened.tempQuoteId, counterparty_address: watched[1]!.account, create_time: at }
await rasa.publish({ ...closing, id: 'demo-close', last_seen_action: 'InstantRequestToClosePosition', action_status: 'success', modify_time: at })
await rasa.publish({ ...closing, id: 'demo-fill', last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_open: '1.5', filled_amount_close: '1.5', modify_time: at + 1 }, { live: false })
const closed = await waiting
console.log(`waitFor: quote ${closed.quoteId} is ${closed.status}; its fill came from ${closed.transitions.at(-1)!.source} (never sent on the socket)`)

const stats = reloaded.stats()
console.log(`— stats of the reloaded client — sockets ${stats.sockets}, frames received ${stats.frames.received}, delivered ${stats.frames.delivered}, backfills ${stats.backfills.runs} (recovered ${stats.backfills.recovered})`)
for (const s of subscriptions) s.unsubscribe()
reloaded.close()
await Promise.all([enigma.close(), rasa.close()])
