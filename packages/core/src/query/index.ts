export { searchNotificationsQueryKey, searchNotificationsQueryOptions } from './searchNotificationsQueryOptions.js'
