/**
 * @packageDocumentation
 * @module @solver-notifications/otel
 */
export { type InstrumentOptions, type Instrumentation, METRICS, SPANS, instrumentNotifications } from './instrumentNotifications.js'
