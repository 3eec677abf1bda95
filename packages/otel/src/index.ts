/**
 * @packageDocumentation
 * @module @solver-notifications/otel
 */
export { BUCKETS, type InstrumentOptions, type Instrumentation, METRICS, SPANS, instrumentNotifications } from './instrumentNotifications.js'
