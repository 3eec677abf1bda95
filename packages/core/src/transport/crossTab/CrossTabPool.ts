import type { NotificationsConfig, ResolvedSolver } from '../../config/types.js'
import type { ServiceError } from '../../errors/ServiceError.js'
import type { Notification } from '../../protocol/types.js'
import type { Address } from '../../utils/address.js'
import type { HistoryAnswer, HistoryAsk, HistoryReader, ListenerPool } from '../ListenerPool.js'
import type { Lease, SocketPool } from '../SocketPool.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from '../TransportEvent.js'
import type { CrossTabKit } from './CrossTabKit.js'
import { LeaderElection, type LocksLike } from './LeaderElection.js'
import { BEAT_MS, GONE_MS, TabPeers } from './TabPeers.js'
import type { HistoryBroker } from './HistoryBroker.js'
import { type TabMessage, TAB_PROTOCOL, type WireAnswer, fromWire, parseTabMessage, tabNames, toWire } from './tabMessages.js'

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

interface Sub {
  sid: string
  solver: ResolvedSolver
  account: Address
  /** a leader served it (so losing that leader is a gap its stream must hear about) */
  served: boolean
  /** served by this tab's own pool: the leader did not answer its `sub` in time */
  local?: boolean
  /** the deadline of its `sub` (the leader answers at once with the current status) */
  timer?: ReturnType<SocketPool['timers']['set']> | undefined
  /** its lease on this tab's own pool, while this tab serves it */
  own?: Own | undefined
  /** its server changed and the old one still delivers, for a moment (see {@link Overlap}) */
  overlap?: Overlap | undefined
  /**
   * what it was given last, by content, whoever served it: a copy of any of them is dropped, during an
   * overlap or after it (a copy of what one server delivered arrives late from the other)
   */
  recent: Set<string>
}

/**
 * A stream whose server changed (a handoff, a leader stolen from, a fallback) keeps its old server's
 * notifications until the new one has served it a moment, so what was published while the new socket
 * was still dialing is not lost (rasa keeps only each quote's latest state: history cannot bring the
 * transitions back). Both servers' notifications go through one de-duplication meanwhile; the old
 * server's status events are not the stream's any more. The stream still hears `reconnecting` and
 * backfills, in case the old server was frozen (docs/guide/cross-tab.md, "Handoff").
 */
interface Overlap {
  /** the old server: the tab that led, or this tab's own lease it served the stream with */
  from: string | Own
  /** its end: the deadline, or a moment after the new server opened */
  timer: ReturnType<SocketPool['timers']['set']>
  /** the new server opened: the end is near */
  ending: boolean
}

/** How long an old server keeps delivering at most, and how long after the new one opened. */
export const OVERLAP_MAX_MS = 10 * BEAT_MS
export const OVERLAP_AFTER_OPEN_MS = BEAT_MS
/** How many delivered notifications a stream remembers to drop late copies of (see `Sub.recent`). */
const RECENT = 512
/** An old leader forwards to a tab at most this long after losing the lock, unless the tab lets go first (`unsub`). */
const RETIRE_MS = OVERLAP_MAX_MS + 2 * BEAT_MS

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

const CONNECTING = Object.freeze({ type: 'status', status: 'connecting', attempt: 0 } as const)

/** A history read this tab asked of the leader, waiting for its answer. */
interface Ask {
  solver: ResolvedSolver
  account: Address
  ask: HistoryAsk
  resolve: (answer: HistoryAnswer) => void
  reject: (error: unknown) => void
  /** the deadline of the leader's answer */
  timer: ReturnType<SocketPool['timers']['set']>
}

/** A leader answers a `sub` at once (the stream's current status); this long without it, the tab serves the stream itself. */
export const SUB_ANSWER_MS = 3 * BEAT_MS

/** Whether a forwarded notification is one of this stream's: the same checks a socket frame passes. */
function belongsTo(n: Notification, sub: Pick<Sub, 'solver' | 'account'>): boolean {
  return (
    n.account.toLowerCase() === sub.account.toLowerCase() &&
    n.chainId === sub.solver.chainId &&
    n.solverId === sub.solver.solverId &&
    n.protocol === sub.solver.notifications.protocol
  )
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
  readonly #from: string
  readonly #to: string
  readonly #sid: string

  constructor(
    post: (m: TabMessage) => void,
    from: string,
    to: string,
    sid: string) {
    this.#post = post
    this.#from = from
    this.#to = to
    this.#sid = sid
  }
  notification(n: Notification): void {
    this.#post({ v: TAB_PROTOCOL, t: 'n', tab: this.#from, to: this.#to, sid: this.#sid, n })
  }
  event(e: TransportStatusEvent | TransportErrorEvent): void {
    this.#post({ v: TAB_PROTOCOL, t: 'e', tab: this.#from, to: this.#to, sid: this.#sid, e: toWire(e) })
  }
  complete(): void {
    this.#post({ v: TAB_PROTOCOL, t: 'c', tab: this.#from, to: this.#to, sid: this.#sid })
  }
}

/**
 * This tab's lease on its own pool for one of its streams: what the pool gives goes to the stream
 * through the pool's de-duplication of an {@link Overlap}. Retiring (the stream has a new server), it
 * only delivers notifications until it is released.
 */
class Own implements Listener, Lease {
  /** written by the pool only */
  router: Lease['router'] = undefined
  /** written by the pool only */
  route: Lease['route'] = undefined
  retiring = false
  readonly #listener: Listener
  readonly #deliver: (n: Notification) => void
  readonly #opened: () => void

  constructor(listener: Listener, deliver: (n: Notification) => void, opened: () => void) {
    this.#listener = listener
    this.#deliver = deliver
    this.#opened = opened
  }
  notification(n: Notification): void {
    this.#deliver(n)
  }
  event(e: TransportStatusEvent | TransportErrorEvent): void {
    if (this.retiring) return
    if (e.type === 'status' && e.status === 'open') this.#opened()
    this.#listener.event(e)
  }
  complete(): void {
    if (!this.retiring) this.#listener.complete()
  }
}

/**
 * One socket per browser (docs/architecture.md, "Cross-tab"): the tab holding the Web Lock (the leader) runs the real socket
 * pool for the union of every tab's streams and forwards each stream's events to the tab that asked;
 * the others (followers) open no socket. Each tab keeps its own streams and resume logic, so a stream
 * behaves in a follower exactly as in the leader. When the leader goes (closed, crashed, frozen, or
 * hidden while another tab is visible), another takes the lock, opens the sockets, and every stream
 * sees `reconnecting` then `open`: resume streams backfill from their own watermark.
 */
export class CrossTabPool implements ListenerPool {
  readonly timers: SocketPool['timers']
  readonly #id = Math.random().toString(36).slice(2) + Date.now().toString(36)
  /** not #private: the frozen-tab tests stop it */
  private readonly channel: BroadcastChannel
  readonly #election: LeaderElection
  readonly #peers: TabPeers
  #role: 'leader' | 'follower' = 'follower'
  /** the tab this one follows (the locks confirmed it), or itself when it leads */
  #leader: string | undefined
  /** the last tab the locks confirmed as leader */
  #announced: string | undefined
  #announcedSelf = false
  readonly #mine = new Map<Listener & Lease, Sub>()
  readonly #bySid = new Map<string, Listener & Lease>()
  readonly #served = new Map<string, Forward>()
  /** the deadline of the forwards this tab keeps after losing the lock (those their tab did not let go of) */
  #retiring: ReturnType<SocketPool['timers']['set']> | undefined
  #dropped = 0
  #fallbacks = 0
  #nextSid = 0
  /** history reads asked of the leader, by request id */
  readonly #asks = new Map<string, Ask>()
  /** this tab's reads for every tab while it leads (and its own, always) */
  /** the leader's shared history reads: a chunk of its own, loaded at the first read here (a tab that only follows never needs it) */
  #broker: Promise<HistoryBroker> | undefined
  readonly #read: HistoryReader
  /** not #private: the frozen-tab tests stop it */
  private beat: ReturnType<SocketPool['timers']['set']> | undefined
  #closed = false
  readonly #startedAt: number
  /** silent tabs this tab serves, waiting for the locks to say they are gone (see `#silent`) */
  readonly #watched = new Set<string>()

  readonly #local: SocketPool
  readonly #config: NotificationsConfig
  readonly #isVisible: () => boolean
  /** what this chunk uses of the eager code */
  readonly #kit: CrossTabKit
  /** how long the leader may take to answer a history read (its own deadlines: one wait for its gate, one request) */
  readonly #answerMs: number

  constructor(
    local: SocketPool,
    config: NotificationsConfig,
    name: string,
    locks: LocksLike,
    isVisible: () => boolean,
    read: HistoryReader,
    kit: CrossTabKit,
    answerMs: number) {
    this.#answerMs = answerMs
    this.#local = local
    this.#config = config
    this.#isVisible = isVisible
    this.#kit = kit
    this.timers = local.timers
    this.#read = read
    this.#startedAt = this.timers.now()
    // Tabs of another protocol version elect and talk apart (tabMessages.ts, `TAB_PROTOCOL`).
    const lockName = tabNames(name)
    this.channel = new BroadcastChannel(lockName)
    this.channel.onmessage = (event: MessageEvent) => this.#receive(event.data)
    this.#peers = new TabPeers(this.#id, isVisible, () => this.#sendBeat(), this.timers.now)
    this.beat = this.timers.set(() => this.tick(), BEAT_MS)
    this.#sendBeat()
    this.#election = new LeaderElection(locks, lockName, this.#id, {
      lead: () => this.#becomeLeader(),
      announce: () => {
        this.#announcedSelf = true
        this.#send({ t: 'leader' })
        this.#sendBeat()
      },
      lost: () => {
        if (this.#role === 'leader') this.#becomeFollower(this.#announced !== this.#id ? this.#announced : undefined)
      },
    }, this.timers)
  }

  /** `announced`: the stream was told `connecting` already (it waited for this pool to load). */
  acquire(solver: ResolvedSolver, account: Address, listener: Listener & Lease, announced = false): void {
    if (this.#closed) {
      this.#local.acquire(solver, account, listener) // a closed pool answers `closed` and completes
      return
    }
    const sub: Sub = { sid: `${this.#id}:${++this.#nextSid}`, solver, account, served: false, recent: new Set() }
    this.#mine.set(listener, sub)
    this.#bySid.set(sub.sid, listener)
    // Whoever serves it announces the current status, as the local pool does.
    if (this.#role === 'leader') {
      sub.served = true
      this.#serveHere(listener, sub)
      return
    }
    // Not served until the leader has it: nothing reaches it meanwhile, so it is `connecting` (a resume
    // stream then backfills what was published until the leader's `open` reaches it).
    if (!announced) listener.event(CONNECTING)
    this.#subscribeRemote(sub)
  }

  release(listener: Listener & Lease): void {
    const sub = this.#mine.get(listener)
    this.#mine.delete(listener)
    if (sub) {
      this.#bySid.delete(sub.sid)
      sub.timer = this.timers.clear(sub.timer)
      this.#endOverlap(sub)
      this.#releaseHere(sub)
    } else this.#local.release(listener)
    if (sub && !sub.local && this.#role === 'follower' && this.#leader) this.#send({ t: 'unsub', to: this.#leader, sid: sub.sid })
  }

  /**
   * One history reader per stream key per browser: the leader reads (its asks and the other tabs' of
   * the same key become one read), a follower asks the leader and gets the answer over the channel; an
   * ask outlives a change of leader (it goes to the next one, or is read here when this tab leads).
   */
  history(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    if (this.#role === 'leader' || this.#closed) return this.#readHere(solver, account, ask)
    return new Promise<HistoryAnswer>((resolve, reject) => {
      if (ask.signal.aborted) {
        reject(ask.signal.reason)
        return
      }
      const rid = `${this.#id}:h${++this.#nextSid}`
      // No wait without a deadline: a leader that drops the ask (it does not know it, it is stuck)
      // leaves this tab to read history itself (a poll may wait its interval in the leader's gate too).
      const timer = this.timers.set(() => this.#askUnanswered(rid), this.#answerMs + (ask.poll ?? 0))
      this.#asks.set(rid, { solver, account, ask, resolve, reject, timer })
      ask.signal.addEventListener(
        'abort',
        () => {
          const a = this.#asks.get(rid)
          if (!a) return
          this.#asks.delete(rid)
          this.timers.clear(a.timer)
          reject(ask.signal.reason)
        },
        { once: true },
      )
      this.#sendAsk(rid)
    })
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.beat = this.timers.clear(this.beat)
    this.#send({ t: 'bye' })
    for (const forward of this.#served.values()) this.#local.release(forward)
    this.#served.clear()
    this.#retiring = this.timers.clear(this.#retiring)
    for (const sub of this.#mine.values()) {
      sub.timer = this.timers.clear(sub.timer)
      this.#endOverlap(sub)
    }
    // The streams this tab serves itself are ended by its own pool, the others here.
    this.#local.close()
    for (const [listener, sub] of [...this.#mine]) {
      if (sub.local) continue
      listener.event({ type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' })
      listener.complete()
    }
    this.#mine.clear()
    this.#bySid.clear()
    for (const a of this.#asks.values()) {
      this.timers.clear(a.timer)
      a.reject(new this.#kit.ServiceError('ABORTED', 'The client was closed while history was being read.'))
    }
    this.#asks.clear()
    this.#election.close()
    this.channel.close()
  }

  /** Sends an ask to the leader (kept until one is known, and sent again to each new one). */
  #sendAsk(rid: string): void {
    const a = this.#asks.get(rid)
    if (!a || !this.#leader || this.#leader === this.#id) return
    const { solver, account, ask } = a
    this.#send({ t: 'hq', to: this.#leader, rid, chainId: solver.chainId, solverId: solver.solverId, account, since: ask.since, maxRows: ask.maxRows, poll: ask.poll })
  }

  /** Reads history in this tab, through the broker (whose code loads at the first read). */
  #readHere(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    const { ServiceError } = this.#kit
    this.#broker ??= import('./HistoryBroker.js').then(
      ({ HistoryBroker }) => new HistoryBroker(this.#read, this.timers),
      (cause: unknown) => {
        this.#broker = undefined
        return Promise.reject(new ServiceError('NETWORK', `History could not be read: its code did not load (${String(cause)}); check the network.`, { cause }))
      },
    )
    return this.#broker.then((broker) => broker.read(solver, account, ask))
  }

  /** This tab reads what it had asked of the leader (it leads now). */
  #readAsksHere(): void {
    const asks = [...this.#asks.values()]
    this.#asks.clear()
    for (const a of asks) {
      this.timers.clear(a.timer)
      this.#readHere(a.solver, a.account, a.ask).then(a.resolve, a.reject)
    }
  }

  /** The leader did not answer a history read in time: this tab reads it (counted, logged). */
  #askUnanswered(rid: string): void {
    const a = this.#asks.get(rid)
    if (!a) return
    this.#asks.delete(rid)
    this.#fallbacks++
    this.#local.options.logger?.log('warn', 'cross-tab fallback: history read here', { leader: this.#leader })
    this.#readHere(a.solver, a.account, a.ask).then(a.resolve, a.reject)
  }

  /** Reads history for a follower and answers it over the channel. */
  #answerAsk(m: Extract<TabMessage, { t: 'hq' }>): void {
    let solver: ResolvedSolver
    try {
      solver = this.#config.getSolver({ chainId: m.chainId, solverId: m.solverId })
    } catch {
      this.#dropped++
      return
    }
    // The asker cannot abort a read of another tab; its answer is simply not used then.
    const reply = (answer: WireAnswer) => this.#send({ t: 'hr', to: m.tab, rid: m.rid, answer })
    this.#readHere(solver, m.account as Address, { since: m.since, maxRows: m.maxRows, poll: m.poll, signal: new AbortController().signal }).then(
      (a) => reply({ ok: true, notifications: a.notifications, truncated: a.truncated, foreign: a.foreign, overlong: a.overlong }),
      (error: unknown) => {
        const e = error instanceof this.#kit.ServiceError ? error : new this.#kit.ServiceError('NETWORK', `History could not be read: ${(error as Error)?.message ?? String(error)}`)
        const retryAfterMs = (error as { retryAfterMs?: unknown })?.retryAfterMs
        reply({ ok: false, error: { code: e.code, message: e.message, retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : undefined } })
      },
    )
  }

  /** The leader's answer to one of this tab's asks, checked like forwarded notifications. */
  #answered(m: Extract<TabMessage, { t: 'hr' }>): void {
    const a = m.tab === this.#leader ? this.#asks.get(m.rid) : undefined
    if (!a) return
    this.#asks.delete(m.rid)
    this.timers.clear(a.timer)
    const { answer } = m
    if (!answer.ok) {
      // Another tab's number: capped like any delay (docs/guide/resume.md).
      a.reject(Object.assign(new this.#kit.ServiceError(answer.error.code as ServiceError['code'], answer.error.message), { retryAfterMs: answer.error.retryAfterMs === undefined ? undefined : this.#kit.capDelay(answer.error.retryAfterMs) }))
      return
    }
    if (!answer.notifications.every((n) => belongsTo(n, a))) {
      this.#dropped++
      a.reject(new this.#kit.ServiceError('INVALID_RESPONSE', 'The tab holding the sockets answered a history read with notifications of another stream; it is read again.'))
      return
    }
    a.resolve({ notifications: answer.notifications, truncated: answer.truncated, foreign: answer.foreign, overlong: answer.overlong })
  }

  stats(): CrossTabStats {
    return { role: this.#role, tabs: 1 + this.#peers.live().length, dropped: this.#dropped, fallbacks: this.#fallbacks }
  }

  /** `notifyOnce`: this tab wants the callback for `key`; the returned function withdraws. */
  claim(key: string): () => void {
    return this.#peers.claim(key)
  }

  /** Whether this tab runs `notifyOnce` callbacks for `key`: of the tabs that claim it, the visible one (lowest id), else the lowest id. */
  isNotifier(key: string): boolean {
    return this.#peers.isNotifier(key)
  }

  /** Posts a message of this tab (its version and sender added). */
  #send(message: DistributiveOmit<TabMessage, 'v' | 'tab'>): void {
    this.#post({ ...message, v: TAB_PROTOCOL, tab: this.#id } as TabMessage)
  }

  #post(message: TabMessage): void {
    if (this.#closed && message.t !== 'bye') return
    try {
      this.channel.postMessage(message)
    } catch {
      // A message that cannot be cloned or a closed channel: the beat and the resume streams recover.
    }
  }

  #sendBeat(): void {
    this.#send({ t: 'beat', visible: this.#isVisible(), leader: this.#role === 'leader', once: this.#peers.claimed() })
  }

  #becomeLeader(): void {
    this.#local.options.logger?.log('info', 'cross-tab role', { role: 'leader', tab: this.#id })
    if (this.#local.options.diagnostics.active) this.#local.options.diagnostics.emit({ type: 'role', role: 'leader' })
    const before = this.#leader
    this.#role = 'leader'
    this.#leader = this.#id
    this.#announced = this.#id
    this.#announcedSelf = false
    for (const [listener, sub] of this.#mine) {
      sub.timer = this.timers.clear(sub.timer)
      // Served by this tab's pool already (a leader that did not answer): it stays so.
      if (sub.local) {
        sub.local = false
        continue
      }
      // The tab that led may still be forwarding (it handed the sockets over): it does until this tab's socket serves the stream.
      if (sub.served && before !== undefined && before !== this.#id) this.#overlap(sub, before)
      this.#gap(listener, sub, 'this tab now holds the sockets')
      sub.served = true
      this.#serveHere(listener, sub)
    }
    // What this tab had asked of the leader it reads itself now.
    this.#readAsksHere()
  }

  #becomeFollower(leader: string | undefined): void {
    this.#local.options.logger?.log('info', 'cross-tab role', { role: 'follower', tab: this.#id, leader })
    if (this.#local.options.diagnostics.active) this.#local.options.diagnostics.emit({ type: 'role', role: 'follower' })
    this.#role = 'follower'
    this.#leader = leader
    this.#announcedSelf = false
    // Make before break: the sockets stay, forwarding to each tab until it is served by the next leader
    // (it says `unsub`) or the deadline; this tab's own streams keep them as their old server meanwhile.
    this.timers.clear(this.#retiring)
    this.#retiring = this.timers.set(() => {
      this.#retiring = undefined
      // Still a follower: every forward left is one no tab let go of.
      if (this.#role === 'leader') return
      for (const forward of this.#served.values()) this.#local.release(forward)
      this.#served.clear()
    }, RETIRE_MS)
    for (const [listener, sub] of this.#mine) {
      if (sub.own) this.#overlap(sub, sub.own)
      sub.local = false
      this.#gap(listener, sub, 'another tab holds the sockets now')
      this.#subscribeRemote(sub)
    }
  }

  /** This tab's pool serves the stream, through its own lease. */
  #serveHere(listener: Listener & Lease, sub: Sub): void {
    const own = new Own(
      listener,
      (n) => this.#deliver(listener, sub, n),
      () => this.#newServerOpen(sub),
    )
    sub.own = own
    this.#local.acquire(sub.solver, sub.account, own)
  }

  /** This tab's pool stops serving the stream (a retiring lease of an overlap is released when it ends). */
  #releaseHere(sub: Sub): void {
    if (sub.own) this.#local.release(sub.own)
    sub.own = undefined
  }

  /**
   * Hands a notification to a stream once, whoever brings it: two servers deliver while they overlap,
   * and a late copy from the old one may come after the overlap ended (a busy tab: seconds late).
   */
  #deliver(listener: Listener, sub: Sub, n: Notification): void {
    const key = this.#kit.contentKey(n)
    if (sub.recent.has(key)) return
    sub.recent.add(key)
    // The oldest goes: a late copy is at most an overlap's worth of notifications behind.
    if (sub.recent.size > RECENT) sub.recent.delete(sub.recent.values().next().value!)
    listener.notification(n)
  }

  /** The stream's server changes; the old one (`from`) keeps delivering for a moment. */
  #overlap(sub: Sub, from: string | Own): void {
    this.#endOverlap(sub)
    if (typeof from !== 'string') {
      from.retiring = true
      if (sub.own === from) sub.own = undefined
    }
    sub.overlap = { from, ending: false, timer: this.timers.set(() => this.#endOverlap(sub), OVERLAP_MAX_MS) }
  }

  /** The stream's new server opened: the old one stops a moment later (what it still carries arrives meanwhile). */
  #newServerOpen(sub: Sub): void {
    const overlap = sub.overlap
    if (!overlap || overlap.ending) return
    overlap.ending = true
    this.timers.clear(overlap.timer)
    overlap.timer = this.timers.set(() => this.#endOverlap(sub), OVERLAP_AFTER_OPEN_MS)
  }

  /** The old server lets go of the stream. */
  #endOverlap(sub: Sub): void {
    const overlap = sub.overlap
    if (!overlap) return
    sub.overlap = undefined
    this.timers.clear(overlap.timer)
    if (typeof overlap.from !== 'string') this.#local.release(overlap.from)
    // The old leader forwards no more (not when it leads again: that forward is the stream's server).
    else if (overlap.from !== this.#leader) this.#send({ t: 'unsub', to: overlap.from, sid: sub.sid })
  }

  /** A stream that was being served loses its server: `reconnecting`, so resume streams know there is a gap. */
  #gap(listener: Listener & Lease, sub: Sub, reason: string): void {
    if (!sub.served) return
    sub.served = false
    listener.event({ type: 'status', status: 'reconnecting', attempt: 1, closeReason: reason })
  }

  #subscribeRemote(sub: Sub): void {
    if (!this.#leader || this.#leader === this.#id) return // sent when a leader announces itself
    this.#send({ t: 'sub', to: this.#leader, sid: sub.sid, chainId: sub.solver.chainId, solverId: sub.solver.solverId, account: sub.account })
    // No wait without a deadline: a leader that does not answer (it drops the message) leaves the
    // stream to this tab's own pool, rather than `connecting` for ever.
    this.timers.clear(sub.timer)
    sub.timer = this.timers.set(() => this.#subUnanswered(sub), SUB_ANSWER_MS)
  }

  /** The leader did not answer a `sub` in time: this tab serves the stream itself (counted, logged). */
  #subUnanswered(sub: Sub): void {
    sub.timer = undefined
    const listener = this.#bySid.get(sub.sid)
    if (!listener || sub.served || this.#role !== 'follower' || this.#closed) return
    this.#fallbacks++
    this.#local.options.logger?.log('warn', 'cross-tab fallback: socket opened here', { leader: this.#leader })
    if (this.#leader) this.#send({ t: 'unsub', to: this.#leader, sid: sub.sid })
    sub.local = true
    sub.served = true
    this.#serveHere(listener, sub)
  }

  /** The leader went away: every stream here has a gap until the next one serves it. */
  #leaderGone(): void {
    this.#leader = undefined
    for (const [listener, sub] of this.#mine) this.#gap(listener, sub, 'the tab holding the sockets went away')
  }

  /** not #private: the frozen-tab tests stop the beat and run it again */
  private tick(): void {
    this.beat = this.timers.set(() => this.tick(), BEAT_MS)
    for (const tab of this.#peers.expire()) this.#silent(tab)
    this.#sendBeat()
    const live = this.#peers.live()
    // A frozen or crashed leader may still hold the lock: the lowest live follower takes it.
    if (this.#role === 'follower' && this.#leader === undefined && this.timers.now() - this.#startedAt > GONE_MS && live.every(([tab]) => tab > this.#id) && !live.some(([, p]) => p.leader)) {
      this.#election.steal()
    }
    // A hidden leader gives the sockets to a visible tab when there is one.
    if (this.#role === 'leader' && !this.#isVisible()) {
      const visible = live.filter(([, p]) => p.visible).map(([tab]) => tab).sort()[0]
      if (visible) this.#send({ t: 'handoff', to: visible })
    }
  }

  /**
   * A tab fell silent (frozen, throttled, or gone): if it led, this tab's streams have a gap at once.
   * What it is served stays until the locks say it is gone: a frozen or throttled page keeps its
   * `:alive:` lock and hears everything queued for it when it wakes, while a page that never says
   * `sub` again would be starved if its streams were dropped (docs/guide/cross-tab.md, "Deadlines").
   */
  #silent(tab: string): void {
    if (this.#leader === tab) this.#leaderGone()
    for (const sub of this.#mine.values()) if (sub.overlap?.from === tab) this.#endOverlap(sub)
    if (this.#watched.has(tab) || ![...this.#served.keys()].some((key) => key.startsWith(`${tab}|`))) return
    this.#watched.add(tab)
    this.#election.whenGone(
      tab,
      undefined,
      () => {
        this.#watched.delete(tab)
        this.#forget(tab)
      },
      () => this.#watched.delete(tab),
    )
  }

  /** A tab is gone: the streams it was served are released; if it led, this tab's streams have a gap. */
  #forget(tab: string): void {
    for (const [key, forward] of this.#served) {
      if (!key.startsWith(`${tab}|`)) continue
      this.#local.release(forward)
      this.#served.delete(key)
    }
    for (const sub of this.#mine.values()) if (sub.overlap?.from === tab) this.#endOverlap(sub)
    if (this.#leader === tab) this.#leaderGone()
  }

  /** Believes a claim only when the locks confirm the sender leads; a refused one is counted. */
  #whenLeader(tab: string, then: () => void): void {
    this.#election.whenLeader(tab, then, () => this.#dropped++)
  }

  #receive(data: unknown): void {
    if (this.#closed) return
    const m = parseTabMessage(data, this.#kit)
    if (!m) {
      this.#dropped++
      return
    }
    if (m.tab === this.#id) return
    if ('to' in m && m.to !== this.#id) {
      this.#peers.seen(m.tab)
      return
    }
    switch (m.t) {
      case 'beat': {
        // A tab we have not heard before learns who leads at once, not at the next beat.
        if (this.#role === 'leader' && this.#announcedSelf && !this.#peers.has(m.tab)) this.#send({ t: 'leader' })
        // A claim to lead counts only once the locks confirm it; a forged beat changes nothing.
        this.#peers.heard(m.tab, { visible: m.visible, leader: m.leader && m.tab === this.#leader, once: m.once })
        if (m.leader && this.#role === 'follower' && this.#leader !== m.tab) this.#whenLeader(m.tab, () => this.#leader !== m.tab && this.#role === 'follower' && this.#follow(m.tab))
        return
      }
      case 'leader':
        this.#peers.seen(m.tab)
        this.#whenLeader(m.tab, () => {
          this.#announced = m.tab
          if (this.#role === 'leader') return // we lose the lock in a moment (stolen): `becomeFollower` then
          if (this.#leader !== m.tab) this.#follow(m.tab)
        })
        return
      case 'bye':
        // Only a tab that really closed lets go of its `:alive:` lock: wait for it (a closing tab
        // releases it a moment after its bye); a tab still holding it after GONE_MS did not say bye.
        this.#election.whenGone(
          m.tab,
          GONE_MS,
          () => {
            this.#peers.delete(m.tab)
            this.#forget(m.tab)
          },
          () => this.#dropped++,
        )
        return
      case 'handoff':
        if (this.#role === 'follower') this.#whenLeader(m.tab, () => this.#role === 'follower' && this.#election.steal())
        return
      case 'sub': {
        this.#peers.seen(m.tab)
        if (this.#role !== 'leader') return
        let solver: ResolvedSolver
        try {
          solver = this.#config.getSolver({ chainId: m.chainId, solverId: m.solverId })
        } catch (error) {
          const e = error instanceof this.#kit.ServiceError ? error : new this.#kit.ServiceError('UNKNOWN_SOLVER', String(error))
          this.#send({ t: 'e', to: m.tab, sid: m.sid, e: toWire({ type: 'error', error: e }) })
          return
        }
        const key = `${m.tab}|${m.sid}`
        const old = this.#served.get(key)
        if (old) this.#local.release(old)
        const forward = new Forward((message) => this.#post(message), this.#id, m.tab, m.sid)
        this.#served.set(key, forward)
        this.#local.acquire(solver, m.account as Address, forward)
        return
      }
      case 'unsub': {
        const key = `${m.tab}|${m.sid}`
        const forward = this.#served.get(key)
        this.#served.delete(key)
        if (forward) this.#local.release(forward)
        return
      }
      case 'n': {
        const listener = this.#bySid.get(m.sid)
        const sub = listener && this.#mine.get(listener)
        // From the stream's server (the leader, unless this tab serves it itself), or its old server
        // while they overlap; checked like a socket frame: only a notification of this stream's account,
        // chain, solver and protocol.
        const server = sub !== undefined && ((m.tab === this.#leader && !sub.local) || sub.overlap?.from === m.tab)
        if (listener && sub && server && belongsTo(m.n, sub)) this.#deliver(listener, sub, m.n)
        else this.#dropped++
        return
      }
      case 'e': {
        const listener = m.tab === this.#leader ? this.#bySid.get(m.sid) : undefined
        if (!listener) return
        const deliver = () => {
          const sub = this.#mine.get(listener)
          if (!sub || sub.local) return
          sub.served = true
          sub.timer = this.timers.clear(sub.timer)
          if (m.e.type === 'status' && m.e.status === 'open') this.#newServerOpen(sub)
          listener.event(fromWire(m.e, this.#kit))
        }
        // An error, or a terminal status, is believed only from the tab that holds the lock.
        if (m.e.type === 'error' || m.e.status === 'closed') this.#whenLeader(m.tab, deliver)
        else deliver()
        return
      }
      case 'c':
        if (m.tab === this.#leader) {
          this.#whenLeader(m.tab, () => {
            const listener = this.#bySid.get(m.sid)
            if (listener && !this.#mine.get(listener)?.local) listener.complete()
          })
        }
        return
      case 'hq':
        this.#peers.seen(m.tab)
        if (this.#role === 'leader') this.#answerAsk(m)
        return
      case 'hr':
        this.#answered(m)
        return
    }
  }

  /** A new leader: every stream here asks it to be served. */
  #follow(tab: string): void {
    const before = this.#leader
    this.#leader = tab
    for (const [listener, sub] of this.#mine) {
      // Served by this tab itself (the last leader did not answer): the new leader is asked, and this
      // tab's socket serves it until then; served by the last leader: that one does until then.
      if (sub.local) {
        if (sub.own) this.#overlap(sub, sub.own)
        sub.local = false
      } else if (sub.served && before !== undefined && before !== tab && before !== this.#id) this.#overlap(sub, before)
      this.#gap(listener, sub, 'another tab holds the sockets now')
      this.#subscribeRemote(sub)
    }
    // History reads asked of the leader before go to this one (an answer of the old one is not believed).
    for (const rid of this.#asks.keys()) this.#sendAsk(rid)
  }
}
