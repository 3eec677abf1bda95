import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { firstValueFrom, filter } from 'rxjs'
import { afterEach, expect, it, vi } from 'vitest'
import { SocketPool } from '../transport/SocketPool.js'

let live: Live
afterEach(() => live?.stop())

it('inspect(): each socket with state, accounts and resume streams; a drop shows its close code; nothing computed while nobody subscribes', async () => {
  live = await startLive({ reconnect: { baseDelayMs: 50 } })
  const spy = vi.spyOn(SocketPool.prototype, 'inspect')
  const snapshots = live.client.inspect({ intervalMs: 50 })
  expect(spy).not.toHaveBeenCalled()
  const enigma = record(live.client.events({ account: accounts[0], solverId: live.solverOf.enigma }, { resume: true }))
  const rasa = record(live.client.events({ account: accounts[1], solverId: live.solverOf.rasa }, { resume: true }))
  // open, and the first open's backfill (from subscribing) done
  for (const s of [enigma, rasa]) await s.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
  expect(spy).not.toHaveBeenCalled()

  // A panel that stays open: one inspector for the whole scenario.
  const looking = record(snapshots)
  await looking.count(1)
  const first = looking.values[0]!
  expect(spy).toHaveBeenCalledTimes(1)
  expect(first.sockets.map((s) => [s.protocol, s.state, s.accounts]).sort()).toEqual([
    ['enigma', 'open', [accounts[0].toLowerCase()]],
    ['rasa', 'open', [accounts[1].toLowerCase()]],
  ])
  expect(first.sockets.map((s) => s.key).sort()).toEqual([`42161/${live.solverOf.enigma}#0`, `42161/${live.solverOf.rasa}#0`].sort())
  const stream = first.sockets.find((s) => s.protocol === 'rasa')!.streams[0]!
  expect(stream).toMatchObject({ account: accounts[1], phase: 'live', held: 0, lastBackfill: { state: 'finished', recovered: 0 } })
  expect(first.stats.socketStatus).toEqual({ connecting: 0, open: 2, reconnecting: 0 })

  // From the first look on, each resume stream keeps its newest notifications.
  await live.sims.rasa.waitForSubscribers(accounts[1])
  const opened = await live.sims.rasa.instantOpen(accounts[1])
  const recorded = await firstValueFrom(snapshots.pipe(filter((s) => (s.sockets.find((k) => k.protocol === 'rasa')?.streams[0]?.recent.length ?? 0) === 3)))
  expect(recorded.sockets.find((k) => k.protocol === 'rasa')!.streams[0]!.recent.map((r) => [r.source, r.lastSeenAction])).toEqual(opened.frames.map((f) => ['live', f.last_seen_action]))
  // The devtools' "drop socket": reconnecting, then open again, and the resume stream backfills.
  recorded.sockets.find((k) => k.protocol === 'rasa')!.drop()
  await rasa.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open' && !e.backfill).length === 2)
  expect(rasa.values.flatMap((e) => (e.type === 'status' && !e.backfill ? [e.status] : [])).slice(0, 5)).toEqual(['connecting', 'open', 'reconnecting', 'connecting', 'open'])
  await rasa.until((v) => v.filter((e) => e.type === 'status' && e.backfill?.state === 'finished').length === 2) // the drop's backfill
  const caught = await firstValueFrom(snapshots.pipe(filter((s) => s.sockets.some((k) => k.protocol === 'rasa' && k.streams[0]?.lastBackfill?.state === 'finished'))))
  expect(caught.sockets.find((k) => k.protocol === 'rasa')!.streams[0]).toMatchObject({ phase: 'live', lastBackfill: { state: 'finished' } })
  expect(enigma.values.filter((e) => e.type === 'status' && e.status === 'reconnecting')).toHaveLength(0)
  // Open quote books show too, while they are open.
  const book = live.client.quotes({ account: accounts[1], solverId: live.solverOf.rasa }).subscribe()
  const withBook = await firstValueFrom(snapshots.pipe(filter((s) => s.quoteBooks.some((b) => b.ready && b.size >= 1))))
  expect(withBook.quoteBooks).toEqual([{ account: accounts[1], chainId: undefined, solverId: live.solverOf.rasa, size: 1, ready: true }])
  book.unsubscribe()
  expect((await firstValueFrom(snapshots)).quoteBooks).toEqual([])
  // What "copy diagnostics" copies: JSON without functions or secrets.
  expect(JSON.parse(JSON.stringify(caught)).sockets[0].drop).toBeUndefined()
  expect(() => live.client.inspect({ intervalMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))

  // The last inspector leaves: streams forget what they recorded and record nothing while nobody looks.
  looking.subscription.unsubscribe()
  await live.sims.rasa.instantOpen(accounts[1])
  await rasa.until((v) => v.filter((e) => e.type === 'notification').length >= 6)
  const later = await firstValueFrom(snapshots)
  expect(later.sockets.find((k) => k.protocol === 'rasa')!.streams[0]!.recent).toEqual([])
})
