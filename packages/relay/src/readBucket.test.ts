import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { type BucketEntry, readBucket } from './readBucket.js'

it.skipIf(!natsAvailable)("reads every current entry under a pattern (the latest value of each key, deletes as DEL), exactly as many as there are, and leaves no consumer behind", async () => {
  const nats = await startNats()
  const nc = await connect({ servers: nats.url })
  const kv = await new Kvm(nc).create('read_test', { history: 1 })
  for (let i = 0; i < 3_000; i++) await kv.put(`p${i % 3}.k${i}`, JSON.stringify({ v: i }))
  await kv.put('p1.k1', JSON.stringify({ v: 'newer' }))
  await kv.delete('p1.k4')
  const js = jetstream(nc)
  const jsm = await jetstreamManager(nc)
  const seen: BucketEntry[] = []
  expect(await readBucket(js, jsm, 'read_test', 'p1.>', (e) => seen.push(e))).toBe(1_000)
  expect(seen).toHaveLength(1_000)
  expect(new Set(seen.map((e) => e.key)).size).toBe(1_000)
  expect(seen.every((e) => e.key.startsWith('p1.'))).toBe(true)
  expect(seen.find((e) => e.key === 'p1.k1')!.json()).toEqual({ v: 'newer' })
  expect(seen.find((e) => e.key === 'p1.k4')!.operation).toBe('DEL')
  expect(seen.filter((e) => e.operation === 'PUT')).toHaveLength(999)
  expect(await readBucket(js, jsm, 'read_test', 'p9.>', () => {})).toBe(0)
  expect(await readBucket(js, jsm, 'read_test', '>', () => {})).toBe(3_000)
  expect((await jsm.streams.info('KV_read_test')).state.consumer_count).toBe(0)
  await nc.close()
  await nats.close()
})
