import { normalizeNotification } from '@solver-notifications/core'
import { expect, it } from 'vitest'
import { accountKey } from './accountKeys.js'
import { dedupeKey } from './AccountRelay.js'
import { storedKey } from './deployment.js'
import { heartbeatValue } from './Membership.js'
import { leaseValue } from './LeaseTable.js'
import { checkpointTextOf, recordKey, recordText } from './PartitionCheckpoint.js'

// Rolling upgrades stay boring: what a relay stores and publishes is read by relays of the previous and
// the next release side by side (an upgrade, a downgrade, a takeover of each other's checkpoints after a
// kill -9). These golden values are that contract: a change that breaks one fails here, and must come
// with a migration path (docs/guide/relay.md, "Rolling upgrades").

const account = '0xAbC0000000000000000000000000000000000001'

it('a lease, a heartbeat and the deployment config', () => {
  expect(leaseValue('relay-a', 1_763_700_000_000, 15_000)).toBe('{"owner":"relay-a","expires":1763700000000,"ttlMs":15000}')
  expect(heartbeatValue({ maxAccounts: 5_000, expires: 1_763_700_000_000, partitions: 1_024, ttlMs: 15_000 })).toBe('{"maxAccounts":5000,"expires":1763700000000,"layout":3,"partitions":1024,"ttlMs":15000}')
})

it('where an account is stored, and a partition checkpoint record', () => {
  const key = accountKey(42161, 'beta', account)
  expect(key).toBe('42161.beta.0xabc0000000000000000000000000000000000001')
  expect(storedKey(key, 1_024)).toBe('p762.42161.beta.0xabc0000000000000000000000000000000000001')
  expect(recordKey(17)).toBe('p17')
  const position = checkpointTextOf({ since: 1_763_700_000, ids: ['b', 'a'] })
  expect(position).toBe('{"since":1763700000,"ids":["a","b"]}')
  expect(recordText('relay-a', 'relay-a:k3y', [[key, position!]])).toBe(
    '{"owner":"relay-a","claim":"relay-a:k3y","accounts":{"42161.beta.0xabc0000000000000000000000000000000000001":{"since":1763700000,"ids":["a","b"]}}}',
  )
})

it("a message's Nats-Msg-Id: the account key and the notification's content (JetStream de-duplicates across relays of both releases)", () => {
  const n = normalizeNotification(
    { id: 'n-1', quote_id: 9_565, modify_time: 1_763_700_000, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: '1.50' },
    { protocol: 'rasa', chainId: 42161, solverId: 'beta', account },
  )
  expect(`${accountKey(42161, 'beta', account)}.${dedupeKey(n)}`).toBe('42161.beta.0xabc0000000000000000000000000000000000001.9565|1763700000|FillLimitOrderOpen|success|report|1.5|null')
})
