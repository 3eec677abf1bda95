import type { NotificationsConfig, ResolvedSolver } from '../../config/types.js'
import type { ServiceError } from '../../errors/ServiceError.js'
import type { Address } from '../../utils/address.js'
import type { HistoryAnswer, HistoryAsk, HistoryReader } from '../ListenerPool.js'
import type { Timers } from '../Timers.js'
import type { CrossTabKit } from './CrossTabKit.js'
import { HistoryBroker } from './HistoryBroker.js'
import type { Outgoing, belongsTo } from './crossTabState.js'
import type { TabMessage, WireAnswer } from './tabMessages.js'

/** A history read this tab asked of the leader, waiting for its answer. */
interface Ask {
  solver: ResolvedSolver
  account: Address
  ask: HistoryAsk
  resolve: (answer: HistoryAnswer) => void
  reject: (error: unknown) => void
  /** the deadline of the leader's answer */
  timer: ReturnType<Timers['set']>
}

/** What the asks need of the pool. */
export interface AskHost {
  readonly id: string
  readonly timers: Timers
  readonly kit: CrossTabKit
  readonly config: NotificationsConfig
  /** how this tab reads history (the leader reads for every tab through it) */
  readonly read: HistoryReader
  /** how long the leader may take to answer (its own deadlines: one wait for its gate, one request) */
  readonly answerMs: number
  send(m: Outgoing): void
  /** the tab this one follows, if it knows one (itself when it leads) */
  leader(): string | undefined
  /** a refused answer (`dropped`) or a read made here because the leader did not answer (`fallback`) */
  count(what: 'dropped' | 'fallback'): void
  warn(message: string): void
  /** the check a forwarded notification passes (handed over: this chunk imports nothing of the pool's) */
  readonly belongsTo: typeof belongsTo
}

/**
 * One history reader per stream key per browser: the leader reads (its asks and the other tabs' of the
 * same key become one read, in `HistoryBroker`), a follower asks the leader and gets the answer over
 * the channel; an ask outlives a change of leader (it goes to the next one, or is read here when this
 * tab leads). Promises are not state the cross-tab reducer can hold, so they live here, in a chunk of
 * their own loaded at a tab's first history read or first ask of another tab (a tab that never reads
 * history never needs it).
 */
export class HistoryAsks {
  readonly #asks = new Map<string, Ask>()
  #next = 0
  /** the leader's shared history reads */
  readonly #broker: HistoryBroker
  readonly #host: AskHost

  constructor(host: AskHost) {
    this.#host = host
    this.#broker = new HistoryBroker(host.read, host.timers)
  }

  /** Asks the leader, or reads here when this tab leads or closed. */
  read(solver: ResolvedSolver, account: Address, ask: HistoryAsk, here: boolean): Promise<HistoryAnswer> {
    if (here) return this.#readHere(solver, account, ask)
    const { timers } = this.#host
    return new Promise<HistoryAnswer>((resolve, reject) => {
      if (ask.signal.aborted) {
        reject(ask.signal.reason)
        return
      }
      const rid = `${this.#host.id}:h${++this.#next}`
      // No wait without a deadline: a leader that drops the ask (it does not know it, it is stuck)
      // leaves this tab to read history itself (a poll may wait its interval in the leader's gate too).
      const timer = timers.set(() => this.#unanswered(rid), this.#host.answerMs + (ask.poll ?? 0))
      this.#asks.set(rid, { solver, account, ask, resolve, reject, timer })
      ask.signal.addEventListener(
        'abort',
        () => {
          const a = this.#asks.get(rid)
          if (!a) return
          this.#asks.delete(rid)
          timers.clear(a.timer)
          reject(ask.signal.reason)
        },
        { once: true },
      )
      this.#send(rid)
    })
  }

  /** Every ask goes to a new leader (`to`), or is read here (`undefined`: this tab leads now). */
  redirect(to: string | undefined): void {
    if (to !== undefined) {
      for (const rid of this.#asks.keys()) this.#send(rid)
      return
    }
    const asks = [...this.#asks.values()]
    this.#asks.clear()
    for (const a of asks) {
      this.#host.timers.clear(a.timer)
      this.#readHere(a.solver, a.account, a.ask).then(a.resolve, a.reject)
    }
  }

  /** Reads history for a follower and answers it over the channel. */
  answer(m: Extract<TabMessage, { t: 'hq' }>): void {
    const { kit } = this.#host
    let solver: ResolvedSolver
    try {
      solver = this.#host.config.getSolver({ chainId: m.chainId, solverId: m.solverId })
    } catch {
      this.#host.count('dropped')
      return
    }
    // The asker cannot abort a read of another tab; its answer is simply not used then.
    const reply = (answer: WireAnswer) => this.#host.send({ t: 'hr', to: m.tab, rid: m.rid, answer })
    this.#readHere(solver, m.account as Address, { since: m.since, maxRows: m.maxRows, poll: m.poll, signal: new AbortController().signal }).then(
      (a) => reply({ ok: true, notifications: a.notifications, truncated: a.truncated, foreign: a.foreign, overlong: a.overlong }),
      (error: unknown) => {
        const e = error instanceof kit.ServiceError ? error : new kit.ServiceError('NETWORK', `History could not be read: ${(error as Error)?.message ?? String(error)}`)
        const retryAfterMs = (error as { retryAfterMs?: unknown })?.retryAfterMs
        reply({ ok: false, error: { code: e.code, message: e.message, retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : undefined } })
      },
    )
  }

  /** The leader's answer to one of this tab's asks, checked like forwarded notifications. */
  answered(m: Extract<TabMessage, { t: 'hr' }>): void {
    const a = this.#asks.get(m.rid)
    if (!a) return
    const { kit } = this.#host
    this.#asks.delete(m.rid)
    this.#host.timers.clear(a.timer)
    const { answer } = m
    if (!answer.ok) {
      // Another tab's number: capped like any delay (docs/guide/resume.md).
      a.reject(Object.assign(new kit.ServiceError(answer.error.code as ServiceError['code'], answer.error.message), { retryAfterMs: answer.error.retryAfterMs === undefined ? undefined : kit.capDelay(answer.error.retryAfterMs) }))
      return
    }
    if (!answer.notifications.every((n) => this.#host.belongsTo(n, a))) {
      this.#host.count('dropped')
      a.reject(new kit.ServiceError('INVALID_RESPONSE', 'The tab holding the sockets answered a history read with notifications of another stream; it is read again.'))
      return
    }
    a.resolve({ notifications: answer.notifications, truncated: answer.truncated, foreign: answer.foreign, overlong: answer.overlong })
  }

  /** The client closed: every ask fails `ABORTED`. */
  close(): void {
    for (const a of this.#asks.values()) {
      this.#host.timers.clear(a.timer)
      a.reject(new this.#host.kit.ServiceError('ABORTED', 'The client was closed while history was being read.'))
    }
    this.#asks.clear()
  }

  /** Sends an ask to the leader (kept until one is known, and sent again to each new one). */
  #send(rid: string): void {
    const a = this.#asks.get(rid)
    const leader = this.#host.leader()
    if (!a || !leader || leader === this.#host.id) return
    const { solver, account, ask } = a
    this.#host.send({ t: 'hq', to: leader, rid, chainId: solver.chainId, solverId: solver.solverId, account, since: ask.since, maxRows: ask.maxRows, poll: ask.poll })
  }

  /** Reads history in this tab, through the broker. */
  #readHere(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    return this.#broker.read(solver, account, ask)
  }

  /** The leader did not answer a history read in time: this tab reads it (counted, logged). */
  #unanswered(rid: string): void {
    const a = this.#asks.get(rid)
    if (!a) return
    this.#asks.delete(rid)
    this.#host.count('fallback')
    this.#host.warn('cross-tab fallback: history read here')
    this.#readHere(a.solver, a.account, a.ask).then(a.resolve, a.reject)
  }
}
