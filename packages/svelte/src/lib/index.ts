/**
 * @packageDocumentation
 * @module @solver-notifications/svelte
 */
export { getNotificationsClient, setNotificationsClient } from './context.js'
export { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.svelte.js'
export { useNotifications } from './useNotifications.svelte.js'
export { useQuotes } from './useQuotes.svelte.js'
export { useSearchNotifications } from './useSearchNotifications.svelte.js'
