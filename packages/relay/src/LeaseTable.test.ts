import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { LeaseTable } from './LeaseTable.js'

it.skipIf(!natsAvailable)('a renewal that landed without its answer is still ours; one another relay wrote is lost', async () => {
  const nats = await startNats()
  const nc = await connect({ servers: nats.url })
  const kv = await new Kvm(nc).create('leases_test', { history: 1 })
  // No watch feeds this table: its view is as stale as a relay's that has not seen its own write yet.
  const table = new LeaseTable(kv, 'me', 15_000)
  const taken = (await table.take('k1'))!
  // Our previous renewal was stored, but its answer never came back (a timeout under load).
  const landed = await kv.update('partitions.k1', JSON.stringify({ owner: 'me', expires: Date.now() + 15_000 }), taken.revision)
  expect(await table.renew('k1', taken.revision)).toBe(landed)
  // Another relay took it over: lost.
  const theirs = await kv.update('partitions.k1', JSON.stringify({ owner: 'other', expires: Date.now() + 15_000 }), landed)
  expect(await table.renew('k1', landed)).toBe('lost')
  expect(theirs).toBeGreaterThan(landed)
  await nc.close()
  await nats.close()
})
