import type { SimulatorProtocolModule } from './protocols/SimulatorProtocolModule.js'
import type { SimulatorFrame } from './types.js'

/**
 * The frames one scripted lifecycle published, in order.
 *
 * @example
 * const { quoteId, frames } = await sim.instantOpen(account)
 */
export interface LifecycleResult {
  quoteId: number
  tempQuoteId: number
  frames: SimulatorFrame[]
}

interface QuoteState {
  account: string
  quoteId: number
  tempQuoteId: number
  createTime: number
  amount: string
  price: string
}

/**
 * Realistic frame sequences: temporary id first, then on-chain anchoring, fills and closes, with
 * strictly increasing `modify_time` and deterministic ids.
 */
/**
 * How the simulator stamps `modify_time`: `steady` (strictly increasing, for tests) or `wall` (the
 * current second, for long runs such as the CLI).
 */
export type SimulatorClock = 'steady' | 'wall'

export class Lifecycles {
  private nextTemp = -1
  private nextQuote = 1000
  private nextId = 1
  private lastTime = 0
  private readonly quotes = new Map<number, QuoteState>()

  constructor(
    private readonly protocol: SimulatorProtocolModule,
    private readonly publish: (frame: SimulatorFrame) => Promise<void>,
    private readonly startTime?: number,
    private readonly clock: SimulatorClock = 'steady',
  ) {}

  /**
   * Unix seconds for the next frame. `steady`: strictly increasing (real time when possible,
   * deterministic from `startTime` when given), so every frame sorts after the one before. `wall`:
   * the current second, shared by frames published within it, so a long-running simulator never
   * runs ahead of the wall clock.
   */
  tick(): number {
    if (this.clock === 'wall') {
      this.lastTime = Math.max(Math.floor(Date.now() / 1000), this.lastTime)
      return this.lastTime
    }
    const now = this.startTime === undefined ? Math.floor(Date.now() / 1000) : this.startTime
    this.lastTime = Math.max(now, this.lastTime + 1)
    return this.lastTime
  }

  private frame(q: QuoteState, fields: SimulatorFrame): SimulatorFrame {
    const anchored = q.quoteId > 0
    const { lifecycle } = this.protocol
    const none = lifecycle.noValue
    const base: SimulatorFrame = {
      id: `${this.protocol.name}-${this.nextId++}`,
      quote_id: anchored ? q.quoteId : lifecycle.preChainQuoteId(q.tempQuoteId),
      temp_quote_id: q.tempQuoteId,
      create_time: q.createTime,
      modify_time: this.tick(),
      counterparty_address: q.account,
      filled_amount_open: none,
      filled_amount_close: none,
      avg_price_open: none,
      avg_price_close: none,
      failure_type: null,
      error_code: none,
      ...lifecycle.extraFields,
    }
    return { ...base, ...fields }
  }

  private async emit(frames: SimulatorFrame[]): Promise<void> {
    for (const frame of frames) await this.publish(frame)
  }

  private newQuote(account: string, amount = '1.5', price = '64000.25'): QuoteState {
    const q: QuoteState = { account, quoteId: 0, tempQuoteId: this.nextTemp--, createTime: this.tick(), amount, price }
    return q
  }

  /** Instant open: seen with a temporary id → success anchored on-chain → filled report. */
  async instantOpen(account: string, options: { amount?: string; price?: string } = {}): Promise<LifecycleResult> {
    const q = this.newQuote(account, options.amount, options.price)
    const frames = [this.frame(q, { last_seen_action: 'InstantRFQ', action_status: 'seen', state_type: 'alert' })]
    q.quoteId = this.nextQuote++
    this.quotes.set(q.quoteId, q)
    frames.push(this.frame(q, { last_seen_action: 'InstantRFQ', action_status: 'success', state_type: 'alert' }))
    frames.push(this.fillFrame(q))
    await this.emit(frames)
    return { quoteId: q.quoteId, tempQuoteId: q.tempQuoteId, frames }
  }

  private fillFrame(q: QuoteState): SimulatorFrame {
    return this.frame(q, {
      last_seen_action: 'FillLimitOrderOpen',
      action_status: 'success',
      state_type: 'report',
      filled_amount_open: q.amount,
      avg_price_open: q.price,
    })
  }

  /** One more filled report for an open quote. */
  async fill(quoteId: number): Promise<LifecycleResult> {
    const q = this.quote(quoteId)
    const frames = [this.fillFrame(q)]
    await this.emit(frames)
    return { quoteId, tempQuoteId: q.tempQuoteId, frames }
  }

  /** Close: request seen → request success → instant close filled. */
  async closeRequest(quoteId: number): Promise<LifecycleResult> {
    const q = this.quote(quoteId)
    const frames = [
      this.frame(q, { last_seen_action: 'InstantRequestToClosePosition', action_status: 'seen', state_type: 'alert' }),
      this.frame(q, { last_seen_action: 'InstantRequestToClosePosition', action_status: 'success', state_type: 'alert' }),
      this.frame(q, {
        last_seen_action: 'FillOrderInstantClose',
        action_status: 'success',
        state_type: 'report',
        filled_amount_open: q.amount,
        avg_price_open: q.price,
        filled_amount_close: q.amount,
        avg_price_close: q.price,
      }),
    ]
    await this.emit(frames)
    return { quoteId, tempQuoteId: q.tempQuoteId, frames }
  }

  /** A failed open that never reaches the chain. */
  async fail(
    account: string,
    options: { failureType?: string; errorCode?: number; message?: string } = {},
  ): Promise<LifecycleResult> {
    const q = this.newQuote(account)
    const frames = [
      this.frame(q, { last_seen_action: 'InstantRFQ', action_status: 'seen', state_type: 'alert' }),
      this.frame(q, {
        last_seen_action: 'InstantRFQ',
        action_status: 'failed',
        state_type: 'alert',
        failure_type: options.failureType ?? 'INSUFFICIENT_MARGIN',
        error_code: options.errorCode ?? 1203,
        ...this.protocol.lifecycle.failureFields(options.message),
      }),
    ]
    await this.emit(frames)
    return { quoteId: q.tempQuoteId, tempQuoteId: q.tempQuoteId, frames }
  }

  private quote(quoteId: number): QuoteState {
    const q = this.quotes.get(quoteId)
    if (!q) throw new Error(`quote ${quoteId} was not opened by this simulator; call instantOpen first`)
    return q
  }
}
