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
 * What names a network in NetInfo's `details`: never its signal (`strength`, `linkSpeed`,
 * `frequency`, the cellular generation), which NetInfo reports again whenever it changes.
 */
const IDENTITY = ['ssid', 'bssid', 'ipAddress', 'subnet', 'carrier'] as const

/** A network as last seen: its type and the identity details known so far. */
interface Network {
  type: string | undefined
  ids: Partial<Record<(typeof IDENTITY)[number], unknown>>
}

const known = (value: unknown) => value !== undefined && value !== null && value !== ''

/** The identity details NetInfo reported (unknown ones left out: `{}` before the details, netinfo #398). */
function identityOf(details: unknown): Network['ids'] {
  const ids: Network['ids'] = {}
  if (typeof details !== 'object' || details === null) return ids
  for (const key of IDENTITY) {
    const value = (details as Record<string, unknown>)[key]
    if (known(value)) ids[key] = value
  }
  return ids
}

/** Another network: another type, or an identity detail known on both sides that differs. */
function isAnother(was: Network, now: Network): boolean {
  if (was.type !== now.type) return true
  return IDENTITY.some((key) => key in was.ids && key in now.ids && was.ids[key] !== now.ids[key])
}

/**
 * The lifecycle of a React Native app, from the `AppState` and NetInfo modules the app passes in (core
 * imports neither): `AppState` active is `foreground`, anything else `background`; NetInfo
 * `isConnected === false` is `offline`; connected again, or another network while connected (Wi-Fi to
 * cellular, another Wi-Fi), is `online`. A network is its type and identity (ssid, bssid, IP address,
 * subnet, carrier), not its signal: the same Wi-Fi reported again with a new strength or link speed,
 * or with its details filled in after an empty `{}`, is no change. React Native sockets cannot send
 * protocol pings, so on `online` the client replaces every socket (at most once a second per socket)
 * and resume streams catch up.
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
      // The network as last seen ('off', or the network): NetInfo answers with the current state first.
      let last: Network | 'off' | undefined
      const stopNet = NetInfo?.addEventListener(({ isConnected, type, details }) => {
        if (isConnected === null) return // not known yet
        const was = last
        if (!isConnected) {
          last = 'off'
          if (was !== undefined && was !== 'off') listener('offline')
          return
        }
        const now: Network = { type, ids: identityOf(details) }
        if (was === undefined || was === 'off' || isAnother(was, now)) {
          last = now
          if (was !== undefined) listener('online')
          return
        }
        // The same network: what it tells of its identity now is kept (a later change is judged against it).
        Object.assign(was.ids, now.ids)
      })
      return () => {
        app.remove()
        stopNet?.()
      }
    },
  }
}
