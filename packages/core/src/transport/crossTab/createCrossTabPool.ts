import type { NotificationsConfig } from '../../config/types.js'
import type { SocketPool } from '../SocketPool.js'
import { CrossTabPool } from './CrossTabPool.js'

type LocksLike = ConstructorParameters<typeof CrossTabPool>[3]

/**
 * The cross-tab pool where the browser has Web Locks and BroadcastChannel; undefined elsewhere (Node,
 * workers without them, React Native), where `warn` says so once.
 */
export function createCrossTabPool(local: SocketPool, config: NotificationsConfig, option: true | { name?: string | undefined }, warn: (message: string) => void): CrossTabPool | undefined {
  const locks = (globalThis as { navigator?: { locks?: LocksLike } }).navigator?.locks
  if (typeof BroadcastChannel !== 'function' || typeof locks?.request !== 'function') {
    warn('crossTab needs Web Locks and BroadcastChannel (browsers); here each client keeps its own sockets.')
    return undefined
  }
  const doc = (globalThis as { document?: { visibilityState?: string } }).document
  return new CrossTabPool(local, config, (option === true ? undefined : option.name) ?? 'default', locks, () => doc?.visibilityState !== 'hidden')
}
