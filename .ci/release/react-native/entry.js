// What a React Native app imports: core and the React adapter (Metro bundles it; the smoke drives it).
import { createConfig, createNotificationsClient, reactNativeLifecycle } from '@solver-notifications/core'
import { NotificationsProvider, useNotifications } from '@solver-notifications/react'

globalThis.solverNotifications = { createConfig, createNotificationsClient, reactNativeLifecycle, adapter: typeof NotificationsProvider === 'function' && typeof useNotifications === 'function' }
