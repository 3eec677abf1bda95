/**
 * @packageDocumentation
 * @module @solver-notifications/vue
 */
export { notificationsPlugin, provideNotificationsClient } from './notificationsPlugin.js'
export { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.js'
export { useNotifications } from './useNotifications.js'
export { useQuotes } from './useQuotes.js'
export { useNotificationsClient } from './useNotificationsClient.js'
export { useSearchNotifications } from './useSearchNotifications.js'
