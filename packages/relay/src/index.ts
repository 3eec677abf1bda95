/**
 * @packageDocumentation
 * @module @solver-notifications/relay
 */
export { startRelay, type Relay, type RelayOptions } from './startRelay.js'
export { checkRelaySetup } from './checkRelaySetup.js'
export { addAccounts, listAccounts, removeAccounts } from './accountsAdmin.js'
export { accountKey, parseAccountKey, type WatchedAccount } from './accountKeys.js'
export { RelayError, type RelayErrorCode } from './RelayError.js'
export type { RelayStats } from './RelayStats.js'
export type { Readiness } from './opsServer.js'
export { createRelayLogger, type RelayLogger, type LogLevel } from './relayLogger.js'
export type { NatsOptions, NatsTarget } from './natsConnection.js'
export { dedupeKey } from './AccountRelay.js'
export type { Checkpoint } from './PartitionCheckpoint.js'
export { consumeNotifications, type ConsumeOptions, type ConsumedNotification, type NotificationConsumer } from './consumeNotifications.js'
export { migrateDeployment } from './migrate.js'
export { type ConfigRepair, repairConfig } from './repairConfig.js'
export { storedKey } from './deployment.js'
export { partitionOf } from './partitions.js'
