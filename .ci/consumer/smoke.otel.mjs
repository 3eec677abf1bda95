// @solver-notifications/otel from its tarball (ESM): metrics from a live stream equal the client's stats.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { createConfig, createNotificationsClient } from '@solver-notifications/core'
import { METRICS, instrumentNotifications } from '@solver-notifications/otel'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { runOtelSmoke } from './smoke.otel.shared.mjs'

await runOtelSmoke({ AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, createConfig, createNotificationsClient, METRICS, instrumentNotifications, startSolverSimulator, label: 'otel esm' })
