// What the docs' fragments use without declaring it: the app's own things. A block that declares or
// imports a name itself uses its own (module scope shadows these).
import type { Address, NotificationsClient, NotificationsConfig } from '@solver-notifications/core'

declare global {
  const client: NotificationsClient
  const config: NotificationsConfig
  const account: Address
  const snapshot: { takenAt: number }
  // The app's own functions and components in the examples.
  type AppThing = any
  const App: AppThing
  const Row: AppThing
  const queryClient: AppThing
  const items: AppThing
  const start: AppThing
  const add: AppThing
  const render: AppThing
  const toast: AppThing
  const alert: AppThing
  const notify: AppThing
  const sendAlert: AppThing
  const retryLater: AppThing
  // Adapter hooks in fragments that do not say which framework they are in.
  const useNotifications: AppThing
  const useSearchNotifications: AppThing
  const useQuotes: AppThing
}
