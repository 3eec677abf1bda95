import { ServiceError } from '../../errors/ServiceError.js'

/**
 * Where resume streams keep their position across reloads and restarts: the newest `modify_time`
 * (unix seconds) delivered per stream, under the key `chainId:solverId:lowercase account`. Both
 * methods may be sync or async.
 *
 * @example
 * const checkpoint: CheckpointStore = { get: (key) => redis.get(key).then(Number), set: (key, t) => redis.set(key, t) }
 */
export interface CheckpointStore {
  get(key: string): number | undefined | Promise<number | undefined>
  set(key: string, modifyTime: number): void | Promise<void>
}

/**
 * A checkpoint store in memory: positions survive a resubscription or a new client in the same process.
 *
 * @example
 * const checkpoint = memoryCheckpoints()
 * client.notifications({ account }, { resume: { checkpoint } })
 */
export function memoryCheckpoints(): CheckpointStore & { entries(): ReadonlyMap<string, number> } {
  const map = new Map<string, number>()
  return {
    get: (key) => map.get(key),
    set: (key, modifyTime) => {
      map.set(key, modifyTime)
    },
    entries: () => map,
  }
}

/** The part of the Web Storage API a checkpoint store needs (`localStorage`, `sessionStorage`, polyfills). */
export interface StorageLike {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/**
 * A checkpoint store in Web Storage (`localStorage` by default): a reloaded page resumes where it left off.
 *
 * @example
 * client.notifications({ account }, { resume: { checkpoint: webStorageCheckpoints() } })
 */
export function webStorageCheckpoints(storage?: StorageLike, prefix = 'solver-notifications:checkpoint:'): CheckpointStore {
  const store = storage ?? (globalThis as { localStorage?: StorageLike }).localStorage
  if (!store || typeof store.getItem !== 'function') {
    throw new ServiceError('INVALID_PARAMETERS', 'webStorageCheckpoints needs a Storage and localStorage is not available here: pass one, or use memoryCheckpoints().')
  }
  return {
    get(key) {
      const value = Number(store.getItem(prefix + key) ?? Number.NaN)
      return Number.isFinite(value) ? value : undefined
    },
    set(key, modifyTime) {
      store.setItem(prefix + key, String(modifyTime))
    },
  }
}

/** The checkpoint key of a stream: `chainId:solverId:lowercase account`. */
export const checkpointKey = (chainId: number, solverId: string, account: string): string => `${chainId}:${solverId}:${account.toLowerCase()}`
