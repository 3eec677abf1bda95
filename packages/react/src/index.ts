/**
 * @packageDocumentation
 * @module @solver-notifications/react
 */
export { NotificationsProvider } from './NotificationsProvider.js'
export { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.js'
export { useNotifications } from './useNotifications.js'
export { useQuotes } from './useQuotes.js'
export { useNotificationsClient } from './useNotificationsClient.js'
export { useSearchNotifications } from './useSearchNotifications.js'
export { useSuspenseSearchNotifications } from './useSuspenseSearchNotifications.js'
