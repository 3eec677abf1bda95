import type { NotificationsConfig, ResolvedSolver } from '../../config/types.js'
import type { Notification } from '../../protocol/types.js'
import type { Address } from '../../utils/address.js'
import type { HistoryAnswer, HistoryAsk, HistoryReader, ListenerPool } from '../ListenerPool.js'
import type { Lease, SocketPool } from '../SocketPool.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from '../TransportEvent.js'
import type { CrossTabKit } from './CrossTabKit.js'
import type { AskHost, HistoryAsks } from './HistoryAsks.js'
import { LeaderElection, type LocksLike } from './LeaderElection.js'
import { BEAT_MS, TabPeers } from './TabPeers.js'
import { reduceCrossTab } from './crossTabReducer.js'
import { type CrossTabEffect, type CrossTabEvent, type CrossTabState, type Outgoing, belongsTo, initialCrossTab, livePeers, nextDue } from './crossTabState.js'
import { type TabMessage, TAB_PROTOCOL, type WireEvent, fromWire, parseTabMessage, tabNames, toWire } from './tabMessages.js'

/**
 * What `stats().crossTab` reports.
 *
 * @example
 * const { role, tabs, dropped }: CrossTabStats = client.stats().crossTab!
 */
export interface CrossTabStats {
  role: 'leader' | 'follower'
  /** tabs sharing the pool, this one included */
  tabs: number
  /** channel messages dropped as foreign or malformed */
  dropped: number
  /**
   * streams served and history reads made by this tab itself because the leader did not answer in time
   * (docs/guide/cross-tab.md, "Deadlines"): a leader that drops a message must not starve a tab
   */
  fallbacks: number
}

/**
 * The leader's stand-in for a stream of another tab: it forwards what the pool gives it over the
 * channel. It carries its lease itself (as `PooledListener` does), so this chunk imports no class.
 */
class Forward implements Listener, Lease {
  /** written by the pool only */
  router: Lease['router'] = undefined
  /** written by the pool only */
  route: Lease['route'] = undefined
  readonly #post: (m: TabMessage) => void
  readonly #head: { v: typeof TAB_PROTOCOL; tab: string; to: string; sid: string }

  constructor(post: (m: TabMessage) => void, from: string, to: string, sid: string) {
    this.#post = post
    this.#head = { v: TAB_PROTOCOL, tab: from, to, sid }
  }
  notification(n: Notification): void {
    this.#post({ ...this.#head, t: 'n', n })
  }
  event(e: TransportStatusEvent | TransportErrorEvent): void {
    this.#post({ ...this.#head, t: 'e', e: toWire(e) })
  }
  complete(): void {
    this.#post({ ...this.#head, t: 'c' })
  }
}

/**
 * This tab's lease on its own pool for one of its streams: its notifications go through the reducer's
 * de-duplication. Retired (the stream has a new server), it only delivers notifications until released.
 */
class Own implements Listener, Lease {
  /** written by the pool only */
  router: Lease['router'] = undefined
  /** written by the pool only */
  route: Lease['route'] = undefined
  /** written by the cross-tab pool's effects only */
  retired = false
  readonly #listener: Listener
  readonly #on: (e: CrossTabEvent) => void
  readonly #sid: string
  readonly #key: CrossTabKit['contentKey']

  constructor(listener: Listener, sid: string, on: (e: CrossTabEvent) => void, key: CrossTabKit['contentKey']) {
    this.#listener = listener
    this.#sid = sid
    this.#on = on
    this.#key = key
  }
  notification(n: Notification): void {
    this.#on({ t: 'own', sid: this.#sid, n, key: this.#key(n) })
  }
  event(e: TransportStatusEvent | TransportErrorEvent): void {
    if (this.retired) return
    if (e.type === 'status' && e.status === 'open') this.#on({ t: 'opened', sid: this.#sid })
    this.#listener.event(e)
  }
  complete(): void {
    if (!this.retired) this.#listener.complete()
  }
}

/**
 * One socket per browser (docs/architecture.md, "Cross-tab"): the tab holding the Web Lock (the leader) runs the real socket
 * pool for the union of every tab's streams and forwards each stream's events to the tab that asked;
 * the others (followers) open no socket. Each tab keeps its own streams and resume logic, so a stream
 * behaves in a follower exactly as in the leader. When the leader goes (closed, crashed, frozen, or
 * hidden while another tab is visible), another takes the lock, opens the sockets, and every stream
 * sees `reconnecting` then `open`: resume streams backfill from their own watermark.
 *
 * Who leads and who serves each stream is one value, changed by `reduceCrossTab` alone
 * (crossTabReducer.ts): this class parses what arrives, dispatches it and runs the effects, and keeps
 * one timer, for the state's earliest deadline. Nothing here writes a field outside `#dispatch` (an
 * architecture test says so).
 */
export class CrossTabPool implements ListenerPool {
  readonly timers: SocketPool['timers']
  readonly #id = Math.random().toString(36).slice(2) + Date.now().toString(36)
  /** not #private: the frozen-tab tests stop it */
  private readonly channel: BroadcastChannel
  readonly #election: LeaderElection
  readonly #claims: TabPeers
  #state: CrossTabState
  /** not #private: the frozen-tab tests stop it; the one timer, for `nextDue(state)` */
  private wake: ReturnType<SocketPool['timers']['set']> | undefined
  #wakeAt = Infinity
  /** events that arrived while one was being run: they run next, in order */
  readonly #queue: Array<[CrossTabEvent, (Listener & Lease) | undefined]> = []
  #running = false
  /** what the state's streams, forwards and leases stand for here, by id */
  readonly #listeners = new Map<string, Listener & Lease>()
  readonly #sids = new Map<Listener & Lease, string>()
  readonly #own = new Map<string, Own>()
  readonly #retired = new Map<string, Own>()
  readonly #forwards = new Map<string, Forward>()
  /** history reads asked of the leader: a chunk of their own, loaded at the first read (see `HistoryAsks`) */
  readonly #asks: (use?: 'load') => Promise<HistoryAsks> | undefined
  readonly #nextSid: () => string

  readonly #local: SocketPool
  readonly #config: NotificationsConfig
  readonly #isVisible: () => boolean
  /** what this chunk uses of the eager code */
  readonly #kit: CrossTabKit

  constructor(
    local: SocketPool,
    config: NotificationsConfig,
    name: string,
    locks: LocksLike,
    isVisible: () => boolean,
    read: HistoryReader,
    kit: CrossTabKit,
    answerMs: number,
    beatMs = BEAT_MS) {
    this.#local = local
    this.#config = config
    this.#isVisible = isVisible
    this.#kit = kit
    this.timers = local.timers
    let sids = 0
    this.#nextSid = () => `${this.#id}:${++sids}`
    this.#state = initialCrossTab(this.#id, beatMs, this.timers.now())
    const host: AskHost = {
      id: this.#id, timers: this.timers, kit, config, read, answerMs, belongsTo,
      send: (m) => this.#send(m),
      leader: () => this.#state.leader,
      count: (what) => this.#dispatch({ t: what }),
      warn: (message) => local.options.logger?.log('warn', message, { leader: this.#state.leader }),
    }
    let asks: Promise<HistoryAsks> | undefined
    // Without `load`, only what is loaded already: a tab with no ask under way has nothing to redirect.
    this.#asks = (use) =>
      use
        ? (asks ??= import('./HistoryAsks.js').then(
            ({ HistoryAsks }) => new HistoryAsks(host),
            (cause: unknown) => {
              asks = undefined
              return Promise.reject(new kit.ServiceError('NETWORK', `History could not be read: its code did not load (${String(cause)}); check the network.`, { cause }))
            },
          ))
        : asks
    // Tabs of another protocol version elect and talk apart (tabMessages.ts, `TAB_PROTOCOL`).
    const lockName = tabNames(name)
    this.channel = new BroadcastChannel(lockName)
    this.channel.onmessage = (event: MessageEvent) => this.#receive(event.data)
    this.#claims = new TabPeers(() => this.#run({ do: 'beat' }))
    this.#election = new LeaderElection(locks, lockName, this.#id, {
      lead: () => this.#dispatch({ t: 'lead' }),
      announce: () => this.#dispatch({ t: 'announce' }),
      lost: () => this.#dispatch({ t: 'lost' }),
    }, this.timers)
    this.tick()
  }

  /** `announced`: the stream was told `connecting` already (it waited for this pool to load). */
  acquire(solver: ResolvedSolver, account: Address, listener: Listener & Lease, announced = false): void {
    // A closed pool answers `closed` and completes.
    if (this.#state.closed) this.#local.acquire(solver, account, listener)
    else this.#dispatch({ t: 'acquire', sid: this.#nextSid(), solver, account, announced }, listener)
  }

  release(listener: Listener & Lease): void {
    const sid = this.#sids.get(listener)
    if (sid === undefined) this.#local.release(listener)
    else this.#dispatch({ t: 'release', sid })
  }

  /**
   * One history reader per stream key per browser: the leader reads (its asks and the other tabs' of
   * the same key become one read), a follower asks the leader and gets the answer over the channel.
   */
  history(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    return this.#asks('load')!.then((asks) => asks.read(solver, account, ask, this.#state.role === 'leader' || this.#state.closed))
  }

  close(): void {
    this.#dispatch({ t: 'close' })
  }

  stats(): CrossTabStats {
    const s = this.#state
    return { role: s.role, tabs: 1 + livePeers(s, this.timers.now()).length, dropped: s.dropped, fallbacks: s.fallbacks }
  }

  /** `notifyOnce`: this tab wants the callback for `key`; the returned function withdraws. */
  claim(key: string): () => void {
    return this.#claims.claim(key)
  }

  /** Whether this tab runs `notifyOnce` callbacks for `key`: of the tabs that claim it, the visible one (lowest id), else the lowest id. */
  isNotifier(key: string): boolean {
    return TabPeers.isNotifier(key, this.#id, this.#isVisible(), livePeers(this.#state, this.timers.now()))
  }

  /** not #private: the frozen-tab tests run it when the page wakes. The deadlines that passed, the beat among them. */
  private tick(): void {
    this.#dispatch({ t: 'time', visible: this.#isVisible() })
  }

  /**
   * The one writer: reduces each event in turn (one that arrives while effects run waits its turn),
   * runs the effects, then keeps the one timer on the state's earliest deadline.
   */
  #dispatch(event: CrossTabEvent, listener?: Listener & Lease): void {
    this.#queue.push([event, listener])
    if (this.#running) return
    this.#running = true
    const before = this.#state
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        const [e, l] = next
        if (e.t === 'time') {
          this.wake = this.timers.clear(this.wake)
          this.#wakeAt = Infinity
        }
        const { state, effects } = reduceCrossTab(this.#state, e, this.timers.now())
        this.#state = state
        if (e.t === 'acquire' && l && !state.closed) {
          this.#listeners.set(e.sid, l)
          this.#sids.set(l, e.sid)
        }
        for (const effect of effects) this.#run(effect)
        if (e.t === 'release') {
          const gone = this.#listeners.get(e.sid)
          this.#listeners.delete(e.sid)
          if (gone) this.#sids.delete(gone)
        }
      }
    } finally {
      this.#running = false
    }
    const s = this.#state
    if (s.closed) {
      if (before.closed) return
      this.wake = this.timers.clear(this.wake)
      this.#listeners.clear()
      this.#sids.clear()
      void this.#asks()?.then((asks) => asks.close(), () => {})
      this.#election.close()
      this.channel.close()
      return
    }
    if (s === before && this.wake !== undefined) return
    const due = nextDue(s)
    if (due === this.#wakeAt && this.wake !== undefined) return
    this.timers.clear(this.wake)
    this.#wakeAt = due
    this.wake = this.timers.set(() => this.tick(), Math.max(0, due - this.timers.now()))
  }

  #run(effect: CrossTabEffect): void {
    const local = this.#local
    switch (effect.do) {
      case 'send':
        this.#send(effect.m)
        return
      case 'beat':
        this.#send({ t: 'beat', visible: this.#isVisible(), leader: this.#state.role === 'leader', once: this.#claims.claimed() })
        return
      case 'event':
        this.#listeners.get(effect.sid)?.event(fromWire(effect.e, this.#kit))
        return
      case 'notify':
        this.#listeners.get(effect.sid)?.notification(effect.n)
        return
      case 'complete':
        this.#listeners.get(effect.sid)?.complete()
        return
      case 'serve': {
        const listener = this.#listeners.get(effect.sid)
        const st = this.#state.streams.get(effect.sid)
        if (!listener || !st) return
        const own = new Own(listener, effect.sid, (e) => this.#dispatch(e), this.#kit.contentKey)
        this.#own.set(effect.sid, own)
        local.acquire(st.solver, st.account, own)
        return
      }
      case 'retire': {
        const own = this.#own.get(effect.sid)
        if (!own) return
        own.retired = true
        this.#own.delete(effect.sid)
        this.#retired.set(effect.sid, own)
        return
      }
      case 'unserve': {
        const leases = effect.retired ? this.#retired : this.#own
        const own = leases.get(effect.sid)
        leases.delete(effect.sid)
        if (own) local.release(own)
        return
      }
      case 'forward': {
        const old = this.#forwards.get(effect.key)
        if (old) local.release(old)
        const forward = new Forward((m) => this.#post(m), this.#id, effect.tab, effect.sid)
        this.#forwards.set(effect.key, forward)
        local.acquire(effect.solver, effect.account, forward)
        return
      }
      case 'unforward': {
        const forward = this.#forwards.get(effect.key)
        this.#forwards.delete(effect.key)
        if (forward) local.release(forward)
        return
      }
      case 'steal':
        this.#election.steal()
        return
      case 'confirm':
        this.#election.whenLeader(effect.tab, () => this.#dispatch(effect.next), () => this.#dispatch({ t: 'dropped' }))
        return
      case 'watch': {
        const { tab, bye } = effect
        this.#election.whenGone(tab, effect.waitMs, () => this.#dispatch({ t: 'gone', tab, bye }), () => this.#dispatch(bye ? { t: 'dropped' } : { t: 'unwatch', tab }))
        return
      }
      case 'asks': {
        const { to } = effect
        void this.#asks()?.then((asks) => asks.redirect(to), () => {})
        return
      }
      case 'answer': {
        const { m } = effect
        this.#asks('load')!.then((asks) => asks.answer(m), () => this.#dispatch({ t: 'dropped' }))
        return
      }
      case 'answered': {
        const { m } = effect
        void this.#asks()?.then((asks) => asks.answered(m), () => {})
        return
      }
      case 'role': {
        const { role, leader } = effect
        local.options.logger?.log('info', 'cross-tab role', role === 'leader' ? { role, tab: this.#id } : { role, tab: this.#id, leader })
        if (local.options.diagnostics.active) local.options.diagnostics.emit({ type: 'role', role })
        return
      }
      case 'fallback':
        local.options.logger?.log('warn', 'cross-tab fallback: socket opened here', { leader: this.#state.leader })
        return
      case 'closeLocal':
        local.close()
        return
    }
  }

  /** Parses a message like a socket frame and dispatches it (with what the reducer cannot compute: a content key, a solver). */
  #receive(data: unknown): void {
    if (this.#state.closed) return
    const m = parseTabMessage(data, this.#kit)
    if (!m) {
      this.#dispatch({ t: 'dropped' })
      return
    }
    if (m.tab === this.#id) return
    if (m.t === 'n' && m.to === this.#id) {
      this.#dispatch({ t: 'heard', m, key: this.#kit.contentKey(m.n) })
      return
    }
    if (m.t === 'sub' && m.to === this.#id && this.#state.role === 'leader') {
      let refusal: WireEvent | undefined
      let solver: ResolvedSolver | undefined
      try {
        solver = this.#config.getSolver({ chainId: m.chainId, solverId: m.solverId })
      } catch (error) {
        const e = error instanceof this.#kit.ServiceError ? error : new this.#kit.ServiceError('UNKNOWN_SOLVER', String(error))
        refusal = toWire({ type: 'error', error: e })
      }
      this.#dispatch(refusal ? { t: 'heard', m, refusal } : { t: 'heard', m, solver: solver! })
      return
    }
    this.#dispatch({ t: 'heard', m })
  }

  /** Posts a message of this tab (its version and sender added). */
  #send(message: Outgoing): void {
    this.#post({ ...message, v: TAB_PROTOCOL, tab: this.#id } as TabMessage)
  }

  #post(message: TabMessage): void {
    if (this.#state.closed && message.t !== 'bye') return
    try {
      this.channel.postMessage(message)
    } catch {
      // A message that cannot be cloned or a closed channel: the beat and the resume streams recover.
    }
  }
}
