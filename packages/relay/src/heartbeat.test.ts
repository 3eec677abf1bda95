import { expect, it } from 'vitest'
import { heartbeatValue } from './Membership.js'

it('the stored heartbeat is pinned (old and new relays read each other during a rolling upgrade): golden value', () => {
  // Changing this shape breaks relays of two releases side by side: it needs a migration path first.
  expect(heartbeatValue({ maxAccounts: 5_000, expires: 1_763_700_000_000, partitions: 1_024, ttlMs: 15_000 })).toBe('{"maxAccounts":5000,"expires":1763700000000,"layout":3,"partitions":1024,"ttlMs":15000}')
  // A relay of the previous release wrote no partitions or TTL; readers take what is there.
  expect(JSON.parse(heartbeatValue({ maxAccounts: Number.MAX_SAFE_INTEGER, expires: 1, partitions: undefined, ttlMs: 1_500 }))).toEqual({ maxAccounts: Number.MAX_SAFE_INTEGER, expires: 1, layout: 3, ttlMs: 1_500 })
})
