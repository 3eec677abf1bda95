import { ServiceRequestError } from '../errors/ServiceRequestError.js'
import { redactUrl } from '../utils/redactUrl.js'

/**
 * Guards a paging loop against a service that ignores `start`: it would answer the same page for ever,
 * and a loop that only stops on a short page or a total would read it until `maxRows` (or, in a
 * backfill where repeated rows do not count, never stop). A page whose first and last rows and length
 * equal the previous page's adds nothing new: that is an `INVALID_RESPONSE`.
 */
export function repeatedPageGuard(url: () => string) {
  let previous: string | undefined
  return (rows: readonly unknown[], start: number): void => {
    if (rows.length === 0) return
    const key = `${rows.length}\n${JSON.stringify(rows[0])}\n${JSON.stringify(rows[rows.length - 1])}`
    if (key === previous) {
      const shown = redactUrl(url())
      throw new ServiceRequestError(
        'INVALID_RESPONSE',
        `Search at ${shown} answered the page at start ${start} with the same rows as the page before: the service ignores start, so paging cannot go on. Fix the service, or read one page with size.`,
        { method: 'POST', url: shown, status: 200 },
      )
    }
    previous = key
  }
}
