// Core alone, as Metro bundles it for an app (what core costs under Metro, which does not tree-shake).
import { createConfig, createNotificationsClient } from '@solver-notifications/core'

globalThis.solverNotificationsCore = { createConfig, createNotificationsClient }
