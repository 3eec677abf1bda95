import { afterEach, expect, it, vi } from 'vitest'
import type { AccountRelay } from '../AccountRelay.js'
import type { PartitionCheckpoint } from '../PartitionCheckpoint.js'
import type { RelayLogger } from '../relayLogger.js'
import { RelayMetrics } from '../RelayMetrics.js'
import { FencedAccounts } from './FencedAccounts.js'

// The accounts a fenced relay keeps, with stand-ins for the accounts (what they do is AccountRelay's,
// tested on real NATS in outage.test.ts): when they resume, when they let go, and that every drop counts.

afterEach(() => vi.useRealTimers())

function setup(options: { keepMs?: number; maxKept?: number } = {}) {
  const metrics = new RelayMetrics({ owned: () => 0, accounts: () => 0, pending: () => 0, natsConnected: () => true, client: () => ({ socketStatus: { connecting: 0, open: 0, reconnecting: 0 }, reconnects: 0, backfills: { failed: 0 } }) } as never)
  const lines: string[] = []
  const logger = { warn: (_: unknown, line: string) => lines.push(line), info: () => {}, error: () => {} } as unknown as RelayLogger
  const fenced = new FencedAccounts({ metrics, logger, ...options })
  const calls: string[] = []
  const account = (key: string, kept: number) => {
    const relay = {
      watched: { key },
      keptCount: kept,
      fence: () => calls.push(`fence ${key}`),
      unfence: (record: PartitionCheckpoint) => calls.push(`unfence ${key} on ${String(record)}`),
      stop: (graceMs: number) => {
        calls.push(`stop ${key} ${graceMs}`)
        return Promise.resolve()
      },
    }
    return relay as unknown as AccountRelay
  }
  const dropped = async (why: string) => Number((await metrics.registry.metrics()).match(new RegExp(`^solver_relay_kept_dropped_total\\{why="${why}"\\} (\\d+)$`, 'm'))?.[1])
  return { fenced, calls, account, dropped, lines }
}

it('taken back from the revision it wrote last: each account resumes on the new record, once', () => {
  const { fenced, calls, account } = setup()
  fenced.park(3, 41, [account('a', 2), account('b', 0)])
  expect(calls).toEqual(['fence a', 'fence b'])
  // Not taken back yet: nothing resumes.
  expect(fenced.resume('a', 3, 'record' as never)).toBeUndefined()
  fenced.retaken(3, { from: undefined, after: 41 })
  expect(fenced.resume('a', 3, 'record' as never)?.watched.key).toBe('a')
  expect(fenced.resume('a', 3, 'record' as never)).toBeUndefined()
  expect(fenced.size).toBe(1)
  expect(fenced.resume('b', 3, 'record' as never)?.watched.key).toBe('b')
  expect(fenced.size).toBe(0)
  expect(calls.slice(2)).toEqual(['unfence a on record', 'unfence b on record'])
})

it('taken back after another relay wrote the lease (its entry, or none: given back): what was kept is dropped, counted with why, in one line', async () => {
  const { fenced, calls, account, dropped, lines } = setup()
  fenced.park(1, 10, [account('a', 5), account('b', 2)])
  fenced.retaken(1, { from: 'relay-b', after: 12 })
  expect(calls).toContain('stop a 0')
  expect(await dropped('another-owner')).toBe(7)
  // Given back by whoever took it meanwhile (a delete): created afresh, so not this relay's entry.
  fenced.park(2, 20, [account('c', 1)])
  fenced.retaken(2, { from: undefined, after: undefined })
  expect(await dropped('another-owner')).toBe(8)
  expect(fenced.resume('c', 2, 'record' as never)).toBeUndefined()
  expect(lines).toHaveLength(2)
})

it('a renewal NATS stored but never acknowledged (the entry newer than the relay knew, still its own): the accounts resume', () => {
  const { fenced, account } = setup()
  fenced.park(4, 30, [account('d', 3)])
  fenced.retaken(4, { from: undefined, after: 31 })
  expect(fenced.resume('d', 4, 'record' as never)?.watched.key).toBe('d')
})

it('kept at most KEEP_MS, and within the bound on what is kept (the partition keeping most lets go)', async () => {
  vi.useFakeTimers()
  const { fenced, account, dropped } = setup({ keepMs: 60_000, maxKept: 10 })
  fenced.park(1, 1, [account('a', 3)])
  fenced.park(2, 1, [account('b', 8)])
  fenced.count(11)
  expect(await dropped('memory')).toBe(8)
  expect(fenced.size).toBe(1)
  vi.advanceTimersByTime(60_000)
  expect(await dropped('too-long')).toBe(3)
  expect(fenced.size).toBe(0)
})
