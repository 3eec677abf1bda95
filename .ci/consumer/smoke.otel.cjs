// @solver-notifications/otel from its tarball (CommonJS): metrics from a live stream equal the client's stats.
const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics')
const { createConfig, createNotificationsClient } = require('@solver-notifications/core')
const { METRICS, instrumentNotifications } = require('@solver-notifications/otel')
const { startSolverSimulator } = require('@solver-notifications/testkit')

import('./smoke.otel.shared.mjs')
  .then(({ runOtelSmoke }) => runOtelSmoke({ AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, createConfig, createNotificationsClient, METRICS, instrumentNotifications, startSolverSimulator, label: 'otel cjs' }))
  .catch((error) => {
    console.error(error)
    process.exit(1)
  })
