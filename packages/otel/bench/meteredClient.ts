// Loaded by core's bench client process (hubClientProcess.ts) for the OTEL bench: turns a client's
// OpenTelemetry metrics on, with a real SDK meter provider whose reader does not export meanwhile.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import type { NotificationsClient } from '@solver-notifications/core'
import { instrumentNotifications } from '../src/index.js'

export function instrument(client: NotificationsClient): void {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
  instrumentNotifications(client, { meterProvider: new MeterProvider({ readers: [reader] }) })
}
