import type { NotificationsConfig } from '../../config/types.js'
import { ServiceError } from '../../errors/ServiceError.js'
import { sealRaw } from '../../protocol/frame.js'
import { contentKey } from '../../protocol/notificationKey.js'
import { protocolOf } from '../../protocol/protocols.js'
import { capDelay } from '../../utils/capDelay.js'
import type { HistoryReader } from '../ListenerPool.js'
import type { SocketPool } from '../SocketPool.js'
import { DeferredCrossTabPool } from './DeferredCrossTabPool.js'
import type { LocksLike } from './LeaderElection.js'

/**
 * The cross-tab pool where the browser has Web Locks and BroadcastChannel; undefined elsewhere (Node,
 * workers without them, React Native), where `warn` says so once. Its code is a dynamic `import()`:
 * bundlers put it in a chunk of its own, fetched only by apps that turn `crossTab` on, when their
 * first stream starts.
 */
export function createCrossTabPool(
  local: SocketPool,
  config: NotificationsConfig,
  option: true | { name?: string | undefined },
  warn: (message: string) => void,
  /** how this tab reads history (the leader reads for every tab through it) */
  read: HistoryReader,
  /** how long a follower waits for the leader's answer to a history read before it reads itself */
  answerMs: number,
): DeferredCrossTabPool | undefined {
  const locks = (globalThis as { navigator?: { locks?: LocksLike } }).navigator?.locks
  if (typeof BroadcastChannel !== 'function' || typeof locks?.request !== 'function') {
    warn('crossTab needs Web Locks and BroadcastChannel (browsers); here each client keeps its own sockets.')
    return undefined
  }
  const doc = (globalThis as { document?: { visibilityState?: string } }).document
  const name = (option === true ? undefined : option.name) ?? 'default'
  const load = () => import('./CrossTabPool.js').then(({ CrossTabPool }) => new CrossTabPool(local, config, name, locks, () => doc?.visibilityState !== 'hidden', read, { ServiceError, sealRaw, protocolOf, capDelay, contentKey }, answerMs))
  return new DeferredCrossTabPool(local, load, warn, read)
}
