import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { afterEach, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { type Checkpoint, PartitionCheckpoint, type Positioned, type RecordHooks } from './PartitionCheckpoint.js'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const account = (key: string, at: Checkpoint): Positioned & { at: Checkpoint } => ({
  watched: { key },
  at,
  checkpoint() {
    return this.at
  },
})
const hooks = (fenced = () => false) => {
  const seen = { stale: 0, wrote: 0, failed: [] as string[], warned: [] as string[] }
  const h: RecordHooks = {
    fenced,
    stale: () => void seen.stale++,
    wrote: () => void seen.wrote++,
    failed: (m) => void seen.failed.push(m),
    warn: (_f, m) => void seen.warned.push(m),
  }
  return { h, seen }
}
const T = 1_763_800_000
/** A real nats-server and a checkpoints bucket on it, both gone after the test. */
async function checkpointsBucket() {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  return new Kvm(nc).create('checkpoints_test', { history: 1 })
}

it.skipIf(!natsAvailable)("one write per partition for all its accounts, none when nothing changed; a claim fences the previous owner, whose next write fails and who lets go; the new owner starts from the old owner's last write", async () => {
  const kv = await checkpointsBucket()

  const a = hooks()
  const mine = await PartitionCheckpoint.claim(kv, 7, 'relay-a', a.h)
  const accounts = Array.from({ length: 200 }, (_, i) => account(`1.beta.0x${i.toString(16).padStart(40, '0')}`, { since: T + i, ids: [`id-${i}`] }))
  for (const acc of accounts) mine.moved(acc)
  await mine.flush()
  // 200 accounts moved: one write.
  expect(a.seen.wrote).toBe(1)
  const stored = (await kv.get('p7'))!.json<{ owner: string; accounts: Record<string, Checkpoint> }>()
  expect(stored.owner).toBe('relay-a')
  expect(Object.keys(stored.accounts)).toHaveLength(200)
  expect(stored.accounts[accounts[3]!.watched.key]).toEqual({ since: T + 3, ids: ['id-3'] })
  // Moved to where it was: nothing written.
  mine.moved(accounts[0]!)
  await mine.flush()
  expect(a.seen.wrote).toBe(1)
  accounts[0]!.at = { since: T + 1_000, ids: [] }
  mine.moved(accounts[0]!)
  await mine.flush()
  expect(a.seen.wrote).toBe(2)

  // Another relay takes the partition (this one was away past its lease): its claim holds what A wrote last.
  const b = hooks()
  const theirs = await PartitionCheckpoint.claim(kv, 7, 'relay-b', b.h)
  expect(theirs.positionOf(accounts[0]!.watched.key)).toEqual({ since: T + 1_000, ids: [] })
  expect(theirs.positionOf(accounts[199]!.watched.key)).toEqual({ since: T + 199, ids: ['id-199'] })
  // A comes back and writes: refused, told to let go, and it never writes again.
  accounts[1]!.at = { since: T + 2_000, ids: [] }
  mine.moved(accounts[1]!)
  await mine.flush()
  expect(a.seen).toMatchObject({ stale: 1, wrote: 2, failed: [] })
  mine.moved(accounts[1]!)
  await mine.flush()
  expect(a.seen.stale).toBe(1)
  const after = (await kv.get('p7'))!.json<{ owner: string; accounts: Record<string, Checkpoint> }>()
  expect(after.owner).toBe('relay-b')
  expect(after.accounts[accounts[1]!.watched.key]).toEqual({ since: T + 1, ids: ['id-1'] })
  // A claim for a partition this relay no longer holds (handed over while the claim waited its turn)
  // writes nothing: it would fence the relay the partition moved to.
  const before = (await kv.get('p7'))!.revision
  await expect(PartitionCheckpoint.claim(kv, 7, 'relay-a', hooks().h, () => false)).rejects.toThrow(/no longer this relay's/)
  expect((await kv.get('p7'))!.revision).toBe(before)
  // B writes on: its revision is the one it claimed.
  theirs.moved(account(accounts[1]!.watched.key, { since: T + 3_000, ids: [] }))
  await theirs.flush()
  expect(b.seen).toMatchObject({ stale: 0, wrote: 1, failed: [] })
})

it.skipIf(!natsAvailable)('fenced (a renewal not confirmed in time): nothing written until confirmed again; a write of its own that landed unanswered is still its own; a bad position is dropped and said', async () => {
  const kv = await checkpointsBucket()
  await kv.put('p3', JSON.stringify({ owner: 'old', claim: 'old:1', accounts: { good: { since: T, ids: [] }, bad: { since: T * 1_000, ids: [] } } }))

  let fenced = true
  const a = hooks(() => fenced)
  const record = await PartitionCheckpoint.claim(kv, 3, 'relay-a', a.h)
  expect(record.positionOf('good')).toEqual({ since: T, ids: [] })
  expect(record.positionOf('bad')).toBeUndefined()
  expect(a.seen.warned).toEqual([expect.stringContaining('checkpoint of bad holds no plausible position')])
  const claimed = (await kv.get('p3'))!
  const acc = account('good', { since: T + 5, ids: [] })
  record.moved(acc)
  await record.flush()
  expect(a.seen.wrote).toBe(0)
  expect((await kv.get('p3'))!.revision).toBe(claimed.revision)

  // Confirmed again. Meanwhile its last write (same claim) landed but the answer was lost: the record is still its own.
  fenced = false
  const text = claimed.string().replace(`"since":${T}`, `"since":${T + 1}`)
  await kv.update('p3', text, claimed.revision)
  record.moved(acc)
  await record.flush()
  expect(a.seen.stale).toBe(0)
  // The retry a second later writes what it holds now.
  await record.flush()
  expect(a.seen).toMatchObject({ stale: 0, wrote: 1 })
  expect((await kv.get('p3'))!.json<{ accounts: Record<string, Checkpoint> }>().accounts.good).toEqual({ since: T + 5, ids: [] })
})
