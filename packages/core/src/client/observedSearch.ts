import type { NotificationsConfig } from '../config/types.js'
import type { Diagnostics } from '../transport/Diagnostics.js'
import { redactUrl } from '../utils/redactUrl.js'

type SearchTarget = { chainId?: number | undefined; solverId?: string | undefined; baseUrl?: string | undefined }

/**
 * Tells the diagnostics seam about one search the app asked for (`client.search`, or one `searchPages`
 * walk): its start, then how it ended. A failed or timed-out search is counted and traced, never unseen
 * (docs/guide/observability.md). Nothing runs while nobody listens.
 */
function begin(diagnostics: Diagnostics, config: NotificationsConfig, params: SearchTarget) {
  const id = diagnostics.id()
  let protocol = ''
  let destination = ''
  let url = ''
  try {
    const solver = config.getSolver(params)
    protocol = solver.notifications.protocol
    destination = `${solver.chainId}.${solver.solverId}`
    // Where history is asked: a protocol's own search URL when its block has one, else the solver's API.
    url = redactUrl(params.baseUrl ?? (solver.notifications as { searchUrl?: string }).searchUrl ?? solver.url ?? '')
  } catch {
    // the search rejects with the same error: its end says so
  }
  diagnostics.emit({ type: 'search', phase: 'start', id, protocol, destination, url })
  return {
    ok: () => diagnostics.emit({ type: 'search', phase: 'end', id, outcome: 'ok' }),
    failed: (error: unknown) => {
      const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown }
      diagnostics.emit({ type: 'search', phase: 'end', id, outcome: 'failed', errorCode: typeof code === 'string' ? code : 'UNKNOWN', status: typeof status === 'number' ? status : undefined })
    },
  }
}

/** `client.search`, told to the seam. */
export function observedSearch<T>(diagnostics: Diagnostics, config: NotificationsConfig, params: SearchTarget, run: () => Promise<T>): Promise<T> {
  if (!diagnostics.active) return run()
  const search = begin(diagnostics, config, params)
  return run().then(
    (result) => {
      search.ok()
      return result
    },
    (error: unknown) => {
      search.failed(error)
      throw error
    },
  )
}

/** `client.searchPages`, told to the seam: one start when the walk begins, one end when it ends or fails. */
export async function* observedPages<T>(diagnostics: Diagnostics, config: NotificationsConfig, params: SearchTarget, pages: AsyncIterable<T>): AsyncGenerator<T> {
  if (!diagnostics.active) return yield* pages
  const search = begin(diagnostics, config, params)
  try {
    yield* pages
  } catch (error) {
    search.failed(error)
    throw error
  }
  search.ok()
}
