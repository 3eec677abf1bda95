// Loaded by core's bench client process (hubClientProcess.ts) for the OTEL bench: turns a client's
// OpenTelemetry metrics on, with a real SDK meter provider whose reader does not export meanwhile.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { createNoopMeter } from '@opentelemetry/api'
import type { NotificationsClient } from '@solver-notifications/core'
import { instrumentNotifications } from '../src/index.js'

/** `sdk`: a real meter provider (what an app pays); `noop`: the API's no-op meter (the package's own listener alone). */
export function instrument(client: NotificationsClient, meter: 'sdk' | 'noop'): void {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
  instrumentNotifications(client, { meterProvider: meter === 'noop' ? { getMeter: () => createNoopMeter() } : new MeterProvider({ readers: [reader] }) })
}
