import type { Lifecycle, LifecycleEvent } from './Lifecycle.js'

/** What is used of React Native's `AppState`. */
export interface AppStateLike {
  addEventListener(type: 'change', listener: (state: string) => void): { remove(): void }
}

/** What is used of a `@react-native-community/netinfo` state. */
export interface NetInfoStateLike {
  isConnected: boolean | null
  type?: string | undefined
  details?: unknown
}

/** What is used of `@react-native-community/netinfo`'s default export. */
export interface NetInfoLike {
  addEventListener(listener: (state: NetInfoStateLike) => void): () => void
}

/**
 * The lifecycle of a React Native app, from the `AppState` and NetInfo modules the app passes in (core
 * imports neither): `AppState` active is `foreground`, anything else `background`; NetInfo
 * `isConnected === false` is `offline`; connected again, or the connection's `type` or `details`
 * changed while connected (Wi-Fi to cellular), is `online`. React Native sockets cannot send protocol
 * pings, so on such an `online` the client replaces every socket at once (it may have died with the
 * old network) and resume streams catch up.
 *
 * @example
 * import NetInfo from '@react-native-community/netinfo'
 * import { AppState } from 'react-native'
 * const client = createNotificationsClient({ config, lifecycle: reactNativeLifecycle({ AppState, NetInfo }) })
 */
export function reactNativeLifecycle({ AppState, NetInfo }: { AppState: AppStateLike; NetInfo?: NetInfoLike | undefined }): Lifecycle {
  return {
    subscribe(listener: (event: LifecycleEvent) => void) {
      const app = AppState.addEventListener('change', (state) => listener(state === 'active' ? 'foreground' : 'background'))
      // The network as last seen ('off', or its type and details): NetInfo answers with the current state first.
      let last: string | undefined
      const stopNet = NetInfo?.addEventListener(({ isConnected, type, details }) => {
        if (isConnected === null) return // not known yet
        const was = last
        last = isConnected ? `${type} ${JSON.stringify(details)}` : 'off'
        if (was !== undefined && was !== last) listener(isConnected ? 'online' : 'offline')
      })
      return () => {
        app.remove()
        stopNet?.()
      }
    },
  }
}
