// Strict TypeScript consumers of React, Vue and devtools, type-checked from their tarballs (libraries included).
import type { Notification } from '@solver-notifications/core'
import { mountDevtools } from '@solver-notifications/devtools'
import { NotificationsProvider, useNotifications as useReact, useSearchNotifications as useReactSearch } from '@solver-notifications/react'
import { notificationsPlugin, useNotifications as useVue } from '@solver-notifications/vue'

const account = '0xAbC0000000000000000000000000000000000001' as const
export function Status(): string {
  const { status, error } = useReact({ account, onNotification: (n: Notification) => n.quoteId })
  const search = useReactSearch({ account })
  return `${status} ${error?.code ?? ''} ${search.data?.kind ?? ''}`
}
export const provider: typeof NotificationsProvider = NotificationsProvider
export const vue = () => useVue(() => ({ account })).status.value
export const plugin = notificationsPlugin
export const mount: (client: Parameters<typeof mountDevtools>[0]) => () => void = mountDevtools
