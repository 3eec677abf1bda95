import type { KvEntry } from '@nats-io/kv'
import { expect, it } from 'vitest'
import { MAX_LEASE_TTL_MS } from './LeaseTable.js'
import { Membership, heartbeatValue } from './Membership.js'

const entry = (value: string) => ({ operation: 'PUT', json: () => JSON.parse(value) }) as unknown as KvEntry

it('a heartbeat that lasts beyond the longest lease TTL is no live relay: it is never planned partitions it would not take', () => {
  const m = new Membership(undefined as never, 'me', 1_000, 15_000)
  const now = Date.now()
  m.onEntry('healthy', entry(heartbeatValue({ maxAccounts: 100, expires: now + 15_000, partitions: 32, ttlMs: 15_000 })))
  m.onEntry('slow-ttl', entry(heartbeatValue({ maxAccounts: 100, expires: now + MAX_LEASE_TTL_MS, partitions: 32, ttlMs: MAX_LEASE_TTL_MS })))
  m.onEntry('ghost', entry(heartbeatValue({ maxAccounts: 100, expires: now + 365 * 86_400_000, partitions: 32, ttlMs: 1e12 })))
  expect(m.live().map((x) => x.id)).toEqual(['me', 'healthy', 'slow-ttl'])
})
