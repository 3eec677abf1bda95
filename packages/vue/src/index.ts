export { notificationsPlugin, provideNotificationsClient } from './notificationsPlugin.js'
export { useNotifications } from './useNotifications.js'
export { useNotificationsClient } from './useNotificationsClient.js'
export { useSearchNotifications } from './useSearchNotifications.js'
