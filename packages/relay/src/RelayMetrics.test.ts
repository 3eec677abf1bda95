import { expect, it } from 'vitest'
import { RelayMetrics } from './RelayMetrics.js'

const source = { owned: () => 2, accounts: () => 5, pending: () => 1, natsConnected: () => true, client: () => ({ socketStatus: { connecting: 0, open: 2, reconnecting: 1 }, reconnects: 4, backfills: { failed: 1 } }) as never }

it('reading the lag changes nothing: the slowest of the last 10 seconds, whoever reads it how often', () => {
  const metrics = new RelayMetrics(source)
  metrics.acked(25, false)
  metrics.acked(7, false)
  expect([metrics.lagMs, metrics.lagMs]).toEqual([25, 25])
})

it('the registry copies the counters into solver_relay_* metrics at scrape time, with their labels', async () => {
  const metrics = new RelayMetrics(source)
  const beta = metrics.stream(1, 'beta', 'rasa')
  beta.count += 3
  expect(metrics.stream(1, 'beta', 'rasa')).toBe(beta)
  metrics.acked(12, true)
  metrics.error('PUBLISH')
  metrics.error('PUBLISH')
  metrics.error('UNAUTHORIZED')
  metrics.backfill('finished')
  metrics.recovered('rasa')
  metrics.recovered('rasa')
  metrics.takeovers = 3
  const text = await metrics.registry.metrics()
  for (const line of [
    'solver_relay_notifications_total{chain="1",solver="beta",protocol="rasa"} 3',
    'solver_relay_accounts_owned 2',
    'solver_relay_sockets{state="open"} 2',
    'solver_relay_sockets{state="reconnecting"} 1',
    'solver_relay_reconnects_total 4',
    'solver_relay_backfills_total{result="finished"} 1',
    'solver_relay_backfills_total{result="failed"} 1',
    'solver_relay_duplicates_total 1',
    'solver_relay_recovered_total{protocol="rasa"} 2',
    'solver_relay_recovered_total{protocol="enigma"} 0',
    'solver_relay_errors_total{code="PUBLISH"} 2',
    'solver_relay_errors_total{code="UNAUTHORIZED"} 1',
    'solver_relay_lease_takeovers_total 3',
    'solver_relay_handoffs_total 0',
    'solver_relay_nats_connected 1',
    'solver_relay_publish_ack_seconds_count 1',
    'solver_relay_publish_ack_seconds_bucket{le="0.025"} 1',
  ]) {
    expect(text).toContain(`${line}\n`)
  }
  expect(text).toMatch(/^process_cpu_user_seconds_total /m)
  expect(metrics.errors).toBe(3)
  // Scraped twice: the same values, not doubled.
  expect(await metrics.registry.metrics()).toContain('solver_relay_errors_total{code="PUBLISH"} 2\n')
})

it('a relay just started, before any error, serves every counter an alert reads at 0 (errors by code, publish failures by cause, bucket resets by bucket)', async () => {
  const text = await new RelayMetrics(source).registry.metrics()
  for (const line of [
    'solver_relay_errors_total{code="PUBLISH"} 0',
    'solver_relay_errors_total{code="LEASE_LOST"} 0',
    'solver_relay_errors_total{code="CHECKPOINT"} 0',
    'solver_relay_errors_total{code="WATCH"} 0',
    'solver_relay_errors_total{code="STREAM_MISSING"} 0',
    'solver_relay_publish_failures_total{cause="permission"} 0',
    'solver_relay_publish_failures_total{cause="stream-full"} 0',
    'solver_relay_publish_failures_total{cause="timeout"} 0',
    'solver_relay_bucket_resets_total{bucket="solver_relay_accounts"} 0',
    'solver_relay_bucket_resets_total{bucket="solver_relay_leases"} 0',
    'solver_relay_bucket_resets_total{bucket="solver_relay_checkpoints"} 0',
    'solver_relay_lease_takeovers_total 0',
    'solver_relay_duplicates_total 0',
    'solver_relay_recovered_total{protocol="enigma"} 0',
    'solver_relay_recovered_total{protocol="rasa"} 0',
  ]) {
    expect(text).toContain(`${line}\n`)
  }
})
