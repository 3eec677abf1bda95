import type { ServiceError } from '../../errors/ServiceError.js'
import type { sealRaw } from '../../protocol/frame.js'
import type { contentKey } from '../../protocol/notificationKey.js'
import type { protocolOf } from '../../protocol/protocols.js'
import type { capDelay } from '../../utils/capDelay.js'

/**
 * What the cross-tab chunk uses of the code every app loads, handed to it when it loads. A lazy chunk
 * that imported those modules itself would make an app's bundler split them out of the initial bundle
 * into extra shared files (docs/architecture.md, "Lazy chunks").
 */
export interface CrossTabKit {
  readonly ServiceError: typeof ServiceError
  readonly sealRaw: typeof sealRaw
  readonly protocolOf: typeof protocolOf
  readonly capDelay: typeof capDelay
  readonly contentKey: typeof contentKey
}
