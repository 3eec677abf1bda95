export { getNotificationsClient, setNotificationsClient } from './context.js'
export { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.svelte.js'
export { useNotifications } from './useNotifications.svelte.js'
export { useSearchNotifications } from './useSearchNotifications.svelte.js'
