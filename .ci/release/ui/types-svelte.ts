// A strict TypeScript consumer of the Svelte helpers from their tarball. Checked with skipLibCheck:
// @tanstack/svelte-query's own declarations import members of .svelte files, which only Svelte's
// language tools resolve.
import { setNotificationsClient, useNotifications } from '@solver-notifications/svelte'

const account = '0xAbC0000000000000000000000000000000000001' as const
export const status = (): string => useNotifications(() => ({ account })).status
export const provide: typeof setNotificationsClient = setNotificationsClient
