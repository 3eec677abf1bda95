import { BadRequest, isRecord, requireInteger } from '../BadRequest.js'
import type { SimulatorFrame } from '../types.js'

export const RASA_MAX_PAGE_SIZE = 100

/**
 * The latest position state per quote, as rasa stores it. A pre-chain quote is keyed by its temporary
 * id until a frame anchors it on-chain; the anchored state then replaces it.
 */
export class RasaHistory {
  private readonly states = new Map<string, SimulatorFrame>()
  /** The same states by lowercase account: a search for one account of 20,000 reads its own states only. */
  private readonly byAccount = new Map<string, Map<string, SimulatorFrame>>()

  add(frame: SimulatorFrame): void {
    const quote = frame.quote_id ?? 0
    const temp = frame.temp_quote_id ?? (quote < 0 ? quote : null)
    if (quote > 0) {
      if (temp !== null) this.remove(`t${temp}`)
      this.put(`q${quote}`, frame)
    } else if (temp !== null) {
      this.put(`t${temp}`, frame)
    }
  }

  private put(key: string, frame: SimulatorFrame): void {
    this.remove(key)
    this.states.set(key, frame)
    const account = frame.counterparty_address?.toLowerCase() ?? ''
    let mine = this.byAccount.get(account)
    if (!mine) this.byAccount.set(account, (mine = new Map()))
    mine.set(key, frame)
  }

  private remove(key: string): void {
    const old = this.states.get(key)
    if (!old) return
    this.states.delete(key)
    this.byAccount.get(old.counterparty_address?.toLowerCase() ?? '')?.delete(key)
  }

  all(): SimulatorFrame[] {
    return [...this.states.values()]
  }

  /** `POST /position-state/{start}/{size}`; `count` is the number of matching states (for paging). */
  search(startText: string, sizeText: string, body: unknown): { count: number; position_state: SimulatorFrame[] } {
    const start = requireInteger(Number(startText), 'start', 0)
    const size = requireInteger(Number(sizeText), 'size', 1, RASA_MAX_PAGE_SIZE)
    if (!isRecord(body)) throw new BadRequest('body must be a JSON object { address, quote_id, create_time_gte, modify_time_gte }')
    const address = optional(body.address, 'address', 'string') as string | null
    const quoteId = optional(body.quote_id, 'quote_id', 'number') as number | null
    const createGte = optional(body.create_time_gte, 'create_time_gte', 'number') as number | null
    const modifyGte = optional(body.modify_time_gte, 'modify_time_gte', 'number') as number | null
    const wanted = address?.toLowerCase()
    const candidates = wanted === undefined ? this.all() : [...(this.byAccount.get(wanted)?.values() ?? [])]
    const matched = candidates.filter(
      (s) =>
        (quoteId === null || s.quote_id === quoteId) &&
        (createGte === null || (s.create_time ?? 0) >= createGte) &&
        (modifyGte === null || (s.modify_time ?? 0) >= modifyGte),
    )
    matched.sort((a, b) => (b.modify_time ?? 0) - (a.modify_time ?? 0))
    return { count: matched.length, position_state: matched.slice(start, start + size) }
  }
}

function optional(value: unknown, name: string, type: 'string' | 'number'): unknown {
  if (value === undefined || value === null) return null
  if (typeof value !== type) throw new BadRequest(`${name} must be a ${type} or null`)
  return value
}
