// Loaded by core's bench client process (hubClientProcess.ts) for the OTEL bench: turns a client's
// OpenTelemetry metrics on (and off again), with a real SDK meter provider whose reader does not export meanwhile.
import { createNoopMeter } from '@opentelemetry/api'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import type { NotificationsClient } from '@solver-notifications/core'
import { instrumentNotifications } from '../src/index.js'

/**
 * `instrumented`: every metric, into a real SDK meter provider (what an app pays by default); `counted`: the
 * same without the two per-notification histograms (`notificationHistograms: false`); `listener`: every
 * metric into the API's no-op meter (the seam and this package's listener alone, no SDK).
 */
export function instrument(client: NotificationsClient, side: 'instrumented' | 'counted' | 'listener'): () => void {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
  const sdk = side === 'listener' ? undefined : new MeterProvider({ readers: [reader] })
  const { stop } = instrumentNotifications(client, { meterProvider: sdk ?? { getMeter: () => createNoopMeter() }, notificationHistograms: side !== 'counted' })
  return () => {
    stop()
    void sdk?.shutdown()
  }
}
