import type { NotificationsClient } from '@solver-notifications/core'
import { type InjectionKey, type Plugin, provide } from 'vue'

export const NOTIFICATIONS_CLIENT: InjectionKey<NotificationsClient<any>> = Symbol('solver-notifications client')

/**
 * Installs a notifications client for every component of the app.
 *
 * @example
 * createApp(App).use(VueQueryPlugin).use(notificationsPlugin, { client }).mount('#app')
 */
export const notificationsPlugin: Plugin<[{ client: NotificationsClient<any> }]> = {
  install(app, options) {
    app.provide(NOTIFICATIONS_CLIENT, options.client)
  },
}

/**
 * Provides a client to a component subtree (call it in `setup`).
 *
 * @example
 * provideNotificationsClient(createNotificationsClient({ config }))
 */
export function provideNotificationsClient(client: NotificationsClient<any>): void {
  provide(NOTIFICATIONS_CLIENT, client)
}
