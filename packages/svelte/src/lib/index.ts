export { getNotificationsClient, setNotificationsClient } from './context.js'
export { useNotifications } from './useNotifications.svelte.js'
export { useSearchNotifications } from './useSearchNotifications.svelte.js'
