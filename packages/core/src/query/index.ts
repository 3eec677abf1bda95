export { searchNotificationsQueryKey, searchNotificationsQueryOptions } from './searchNotificationsQueryOptions.js'
export { searchNotificationsInfiniteQueryOptions } from './searchNotificationsInfiniteQueryOptions.js'
