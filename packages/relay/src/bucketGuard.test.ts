import type { KV } from '@nats-io/kv'
import { expect, it } from 'vitest'
import { BucketGuard } from './bucketGuard.js'
import type { BucketFollower } from './followBucket.js'

// A cluster is not a reset: one stale answer (a replica that lags, a leader being elected) is not acted
// on; a reset every later reading agrees on still is.

/** A bucket whose status answers are given in turn (the last repeats; 'gone': stream not found), and a watch that saw revision `last`. */
function bucket(answers: Array<{ created: string; lastSeq: number } | 'gone'>, last: number) {
  let i = 0
  const kv = {
    status: async () => {
      const a = answers[Math.min(i++, answers.length - 1)]!
      if (a === 'gone') throw new Error('stream not found')
      return { streamInfo: { created: a.created, state: { last_seq: a.lastSeq } } }
    },
  } as unknown as KV
  // Read again from the start, a watch has seen nothing of the new bucket yet.
  const follower = { last, ended: false, restart: async () => {}, fromStart: async () => void (follower.last = 0) } as { last: number } & Omit<BucketFollower, 'last'>
  return { name: 'solver_relay_leases', kv, nc: undefined as never, follower: follower as BucketFollower }
}

it('revisions below what the watch saw in one answer, then the real ones: no reset', async () => {
  const resets: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 10 }, { created: 't0', lastSeq: 4 }, { created: 't0', lastSeq: 12 }], 10)
  const guard = new BucketGuard([b], (name, cause) => void resets.push(`${name}: ${cause}`), 1)
  await guard.check()
  await guard.check()
  expect(resets).toEqual([])
})

it('another creation time in one answer (a leader being elected), then the known one: no reset', async () => {
  const resets: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 10 }, { created: 't1', lastSeq: 10 }, { created: 't0', lastSeq: 11 }], 10)
  const guard = new BucketGuard([b], (name, cause) => void resets.push(`${name}: ${cause}`), 1)
  await guard.check()
  await guard.check()
  expect(resets).toEqual([])
})

it('a real reset (every reading agrees) is still found, once', async () => {
  const resets: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 10 }, { created: 't1', lastSeq: 2 }], 10)
  const guard = new BucketGuard([b], (name, cause) => void resets.push(`${name}: ${cause}`), 1)
  await guard.check()
  await guard.check()
  expect(resets).toEqual(['solver_relay_leases: revisions went back'])
  await guard.check()
  expect(resets).toHaveLength(1)
})

it('"stream not found" from a node that just restarted (it has not caught up), then the bucket: no reset, nothing recreated', async () => {
  const resets: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 10 }, 'gone', { created: 't0', lastSeq: 10 }], 10)
  const guard = new BucketGuard([b], (name, cause) => void resets.push(`${name}: ${cause}`), 1)
  await guard.check()
  await guard.check()
  expect(resets).toEqual([])
})

it('revisions below what the watch saw for as long as a replica catches up, from the stream it knows (same creation time): no reset', async () => {
  const resets: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 82 }, { created: 't0', lastSeq: 76 }], 82)
  const guard = new BucketGuard([b], (name, cause) => void resets.push(`${name}: ${cause}`), 1)
  await guard.check()
  await guard.check()
  await guard.check()
  expect(resets).toEqual([])
})

it('what the relay writes into a bucket once it was reset (the deployment config) is written again at every later look until it lands: one failed write is not the end of it', async () => {
  const resets: string[] = []
  const writes: string[] = []
  const b = bucket([{ created: 't0', lastSeq: 10 }, { created: 't1', lastSeq: 2 }], 10)
  const guard = new BucketGuard(
    [
      {
        ...b,
        repair: async () => {
          writes.push(writes.length === 0 ? 'refused' : 'written')
          if (writes.length === 1) throw new Error('timeout')
        },
      },
    ],
    (name, cause) => void resets.push(`${name}: ${cause}`),
    1,
  )
  await guard.check()
  expect(writes).toEqual([])
  await guard.check()
  expect(resets).toEqual(['solver_relay_leases: revisions went back'])
  expect(writes).toEqual(['refused'])
  await guard.check()
  expect(writes).toEqual(['refused', 'written'])
  await guard.check()
  expect(writes).toEqual(['refused', 'written'])
  expect(resets).toHaveLength(1)
})
