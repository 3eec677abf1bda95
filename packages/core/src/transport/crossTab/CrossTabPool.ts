import type { NotificationsConfig, ResolvedSolver } from '../../config/types.js'
import { ServiceError } from '../../errors/ServiceError.js'
import type { Notification } from '../../protocol/types.js'
import type { Address } from '../../utils/address.js'
import type { ListenerPool } from '../ListenerPool.js'
import type { Lease, SocketPool } from '../SocketPool.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from '../TransportEvent.js'
import { type TabMessage, TAB_PROTOCOL, fromWire, parseTabMessage, toWire } from './tabMessages.js'

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
}

/** Beats: how often each tab says it is alive, and after how long a silent tab counts as gone. */
const BEAT_MS = 1_000
const GONE_MS = 3_500

interface Peer {
  visible: boolean
  seenAt: number
  leader: boolean
  once: string[]
}

interface Sub {
  sid: string
  solver: ResolvedSolver
  account: Address
  /** a leader served it (so losing that leader is a gap its stream must hear about) */
  served: boolean
}

type LocksLike = {
  request(name: string, options: { steal?: boolean; signal?: AbortSignal }, callback: () => Promise<void>): Promise<void>
  query?(): Promise<{ held?: Array<{ name?: string; clientId?: string }> }>
}

/** Whether a forwarded notification is one of this stream's: the same checks a socket frame passes. */
function belongsTo(n: Notification, sub: Sub): boolean {
  return (
    n.account.toLowerCase() === sub.account.toLowerCase() &&
    n.chainId === sub.solver.chainId &&
    n.solverId === sub.solver.solverId &&
    n.protocol === sub.solver.notifications.protocol
  )
}

/** The leader's stand-in for a stream of another tab: it forwards what the pool gives it over the channel. */
class Forward implements Listener, Lease {
  router: Lease['router'] = undefined
  route: Lease['route'] = undefined
  constructor(
    private readonly post: (m: TabMessage) => void,
    private readonly from: string,
    private readonly to: string,
    private readonly sid: string,
  ) {}
  notification(n: Notification): void {
    this.post({ v: 1, t: 'n', tab: this.from, to: this.to, sid: this.sid, n })
  }
  event(e: TransportStatusEvent | TransportErrorEvent): void {
    this.post({ v: 1, t: 'e', tab: this.from, to: this.to, sid: this.sid, e: toWire(e) })
  }
  complete(): void {
    this.post({ v: 1, t: 'c', tab: this.from, to: this.to, sid: this.sid })
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
  private readonly id = Math.random().toString(36).slice(2) + Date.now().toString(36)
  private readonly channel: BroadcastChannel
  private readonly lockName: string
  private role: 'leader' | 'follower' = 'follower'
  private leader: string | undefined
  private readonly mine = new Map<Listener & Lease, Sub>()
  private readonly bySid = new Map<string, Listener & Lease>()
  private readonly served = new Map<string, Forward>()
  private readonly peers = new Map<string, Peer>()
  private readonly claims = new Map<string, number>()
  private dropped = 0
  private nextSid = 0
  private beat: ReturnType<typeof setInterval> | undefined
  private releaseLock: (() => void) | undefined
  /** the lock request waiting in the queue, if any */
  private queued: AbortController | undefined
  private stealing = false
  /** the last tab that announced itself leader */
  private announced: string | undefined
  private closed = false
  private readonly startedAt = Date.now()
  /** lets go of the `:leader:<id>` lock, which proves to the other tabs that this tab leads */
  private releaseLeaderLock: (() => void) | undefined
  /** lets go of the `:alive:<id>` lock, held for this tab's whole life, which proves a `bye` */
  private releaseAliveLock: (() => void) | undefined

  constructor(
    private readonly local: SocketPool,
    private readonly config: NotificationsConfig,
    name: string,
    private readonly locks: LocksLike,
    private readonly isVisible: () => boolean,
  ) {
    this.timers = local.timers
    this.lockName = `solver-notifications:${name}`
    this.channel = new BroadcastChannel(this.lockName)
    this.channel.onmessage = (event: MessageEvent) => this.receive(event.data)
    this.holdLock(`${this.lockName}:alive:${this.id}`, (release) => {
      this.releaseAliveLock = release
    })
    this.beat = setInterval(() => this.tick(), BEAT_MS)
    this.sendBeat()
    this.queueForLock(false)
  }

  acquire(solver: ResolvedSolver, account: Address, listener: Listener & Lease): void {
    if (this.closed) {
      this.local.acquire(solver, account, listener) // a closed pool answers `closed` and completes
      return
    }
    const sub: Sub = { sid: `${this.id}:${++this.nextSid}`, solver, account, served: false }
    this.mine.set(listener, sub)
    this.bySid.set(sub.sid, listener)
    // Whoever serves it announces the current status, as the local pool does.
    if (this.role === 'leader') {
      sub.served = true
      this.local.acquire(solver, account, listener)
    } else this.subscribeRemote(sub)
  }

  release(listener: Listener & Lease): void {
    const sub = this.mine.get(listener)
    this.mine.delete(listener)
    if (sub) this.bySid.delete(sub.sid)
    this.local.release(listener)
    if (sub && this.role === 'follower' && this.leader) this.post({ v: 1, t: 'unsub', tab: this.id, to: this.leader, sid: sub.sid })
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.beat)
    this.post({ v: 1, t: 'bye', tab: this.id })
    for (const forward of this.served.values()) this.local.release(forward)
    this.served.clear()
    this.local.close()
    for (const listener of [...this.mine.keys()]) {
      listener.event({ type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' })
      listener.complete()
    }
    this.mine.clear()
    this.bySid.clear()
    this.releaseLock?.()
    this.releaseLeaderLock?.()
    this.releaseAliveLock?.()
    this.queued?.abort()
    this.channel.close()
  }

  stats(): CrossTabStats {
    return { role: this.role, tabs: 1 + this.livePeers().length, dropped: this.dropped }
  }

  /** `notifyOnce`: this tab wants the callback for `key`; the returned function withdraws. */
  claim(key: string): () => void {
    this.claims.set(key, (this.claims.get(key) ?? 0) + 1)
    this.sendBeat()
    return () => {
      const left = (this.claims.get(key) ?? 1) - 1
      if (left > 0) this.claims.set(key, left)
      else this.claims.delete(key)
      this.sendBeat()
    }
  }

  /** Whether this tab runs `notifyOnce` callbacks for `key`: of the tabs that claim it, the visible one (lowest id), else the lowest id. */
  isNotifier(key: string): boolean {
    const candidates = [{ tab: this.id, visible: this.isVisible() }]
    for (const [tab, peer] of this.livePeers()) if (peer.once.includes(key)) candidates.push({ tab, visible: peer.visible })
    const visible = candidates.filter((c) => c.visible)
    const pool = visible.length > 0 ? visible : candidates
    return pool.reduce((a, b) => (b.tab < a.tab ? b : a)).tab === this.id
  }

  private livePeers(): Array<[string, Peer]> {
    const now = Date.now()
    return [...this.peers].filter(([, p]) => now - p.seenAt < GONE_MS)
  }

  private post(message: TabMessage): void {
    if (this.closed && message.t !== 'bye') return
    try {
      this.channel.postMessage(message)
    } catch {
      // A message that cannot be cloned or a closed channel: the beat and the resume streams recover.
    }
  }

  private sendBeat(): void {
    this.post({ v: TAB_PROTOCOL, t: 'beat', tab: this.id, visible: this.isVisible(), leader: this.role === 'leader', once: [...this.claims.keys()] })
  }

  /** Joins the queue for the lock (or takes it: `steal`); whoever holds it leads until it ends. */
  private queueForLock(steal: boolean): void {
    if (this.closed) return
    if (steal) {
      if (this.stealing || this.role === 'leader') return
      this.stealing = true
      this.queued?.abort()
      this.queued = undefined
    } else if (this.queued || this.role === 'leader' || this.stealing) return
    const controller = steal ? undefined : new AbortController()
    this.queued = controller
    let granted = false
    this.locks
      .request(this.lockName, controller ? { signal: controller.signal } : { steal: true }, () => {
        if (this.queued === controller) this.queued = undefined
        this.stealing = false
        if (this.closed) return Promise.resolve()
        granted = true
        this.becomeLeader()
        return new Promise<void>((resolve) => {
          this.releaseLock = resolve
        })
      })
      .catch(() => {
        // Stolen by a tab that took over, or aborted (close, or our own steal replacing the queued request).
      })
      .finally(() => {
        if (controller && this.queued === controller) this.queued = undefined
        if (steal && !granted) this.stealing = false
        if (granted) {
          this.releaseLock = undefined
          if (!this.closed && this.role === 'leader') this.becomeFollower(this.announced !== this.id ? this.announced : undefined)
        }
        this.queueForLock(false)
      })
  }

  private becomeLeader(): void {
    this.role = 'leader'
    this.leader = this.id
    this.announced = this.id
    // Announced once the `:leader:<id>` lock is held: that lock is how the other tabs check the claim.
    this.holdLock(`${this.lockName}:leader:${this.id}`, (release) => {
      if (this.role !== 'leader') {
        release()
        return
      }
      this.releaseLeaderLock = release
      this.post({ v: 1, t: 'leader', tab: this.id })
      this.sendBeat()
    })
    for (const [listener, sub] of this.mine) {
      this.gap(listener, sub, 'this tab now holds the sockets')
      sub.served = true
      this.local.acquire(sub.solver, sub.account, listener)
    }
  }

  private becomeFollower(leader: string | undefined): void {
    this.role = 'follower'
    this.leader = leader
    this.releaseLeaderLock?.()
    this.releaseLeaderLock = undefined
    for (const forward of this.served.values()) this.local.release(forward)
    this.served.clear()
    for (const [listener, sub] of this.mine) {
      this.local.release(listener)
      this.gap(listener, sub, 'another tab holds the sockets now')
      this.subscribeRemote(sub)
    }
  }

  /** A stream that was being served loses its server: `reconnecting`, so resume streams know there is a gap. */
  private gap(listener: Listener & Lease, sub: Sub, reason: string): void {
    if (!sub.served) return
    sub.served = false
    listener.event({ type: 'status', status: 'reconnecting', attempt: 1, closeReason: reason })
  }

  private subscribeRemote(sub: Sub): void {
    if (!this.leader || this.leader === this.id) return // sent when a leader announces itself
    this.post({ v: 1, t: 'sub', tab: this.id, to: this.leader, sid: sub.sid, chainId: sub.solver.chainId, solverId: sub.solver.solverId, account: sub.account })
  }

  /** The leader went away: every stream here has a gap until the next one serves it. */
  private leaderGone(): void {
    this.leader = undefined
    for (const [listener, sub] of this.mine) this.gap(listener, sub, 'the tab holding the sockets went away')
  }

  private tick(): void {
    const now = Date.now()
    for (const [tab, peer] of this.peers) {
      if (now - peer.seenAt < GONE_MS) continue
      this.peers.delete(tab)
      this.forget(tab)
    }
    this.sendBeat()
    const live = this.livePeers()
    // A frozen or crashed leader may still hold the lock: the lowest live follower takes it.
    if (this.role === 'follower' && this.leader === undefined && now - this.startedAt > GONE_MS && live.every(([tab]) => tab > this.id) && !live.some(([, p]) => p.leader)) {
      this.queueForLock(true)
    }
    // A hidden leader gives the sockets to a visible tab when there is one.
    if (this.role === 'leader' && !this.isVisible()) {
      const visible = live.filter(([, p]) => p.visible).map(([tab]) => tab).sort()[0]
      if (visible) this.post({ v: 1, t: 'handoff', tab: this.id, to: visible })
    }
  }

  private forget(tab: string): void {
    for (const [key, forward] of this.served) {
      if (!key.startsWith(`${tab}|`)) continue
      this.local.release(forward)
      this.served.delete(key)
    }
    if (this.leader === tab) this.leaderGone()
  }

  private receive(data: unknown): void {
    if (this.closed) return
    const m = parseTabMessage(data)
    if (!m) {
      this.dropped++
      return
    }
    if (m.tab === this.id) return
    if ('to' in m && m.to !== this.id) {
      this.seen(m.tab)
      return
    }
    switch (m.t) {
      case 'beat': {
        // A tab we have not heard before learns who leads at once, not at the next beat.
        if (this.role === 'leader' && this.releaseLeaderLock && !this.peers.has(m.tab)) this.post({ v: 1, t: 'leader', tab: this.id })
        // A claim to lead counts only once the locks confirm it; a forged beat changes nothing.
        this.peers.set(m.tab, { visible: m.visible, seenAt: Date.now(), leader: m.leader && m.tab === this.leader, once: m.once })
        if (m.leader && this.role === 'follower' && this.leader !== m.tab) this.whenLeader(m.tab, () => this.leader !== m.tab && this.role === 'follower' && this.follow(m.tab))
        return
      }
      case 'leader':
        this.seen(m.tab)
        this.whenLeader(m.tab, () => {
          this.announced = m.tab
          if (this.role === 'leader') return // we lose the lock in a moment (stolen): `becomeFollower` then
          if (this.leader !== m.tab) this.follow(m.tab)
        })
        return
      case 'bye': {
        // Only a tab that really closed lets go of its `:alive:` lock: wait for it (a closing tab
        // releases it a moment after its bye); a tab still holding it after GONE_MS did not say bye.
        const controller = new AbortController()
        const timer = setTimeout(() => controller.abort(), GONE_MS)
        this.locks
          .request(`${this.lockName}:alive:${m.tab}`, { signal: controller.signal }, () => {
            clearTimeout(timer)
            if (!this.closed) {
              this.peers.delete(m.tab)
              this.forget(m.tab)
            }
            return Promise.resolve()
          })
          .catch(() => {
            if (!this.closed) this.dropped++
          })
        return
      }
      case 'handoff':
        if (this.role === 'follower') this.whenLeader(m.tab, () => this.role === 'follower' && this.queueForLock(true))
        return
      case 'sub': {
        this.seen(m.tab)
        if (this.role !== 'leader') return
        let solver: ResolvedSolver
        try {
          solver = this.config.getSolver({ chainId: m.chainId, solverId: m.solverId })
        } catch (error) {
          const e = error instanceof ServiceError ? error : new ServiceError('UNKNOWN_SOLVER', String(error))
          this.post({ v: 1, t: 'e', tab: this.id, to: m.tab, sid: m.sid, e: toWire({ type: 'error', error: e }) })
          return
        }
        const key = `${m.tab}|${m.sid}`
        const old = this.served.get(key)
        if (old) this.local.release(old)
        const forward = new Forward((message) => this.post(message), this.id, m.tab, m.sid)
        this.served.set(key, forward)
        this.local.acquire(solver, m.account as Address, forward)
        return
      }
      case 'unsub': {
        const key = `${m.tab}|${m.sid}`
        const forward = this.served.get(key)
        this.served.delete(key)
        if (forward) this.local.release(forward)
        return
      }
      case 'n': {
        const listener = m.tab === this.leader ? this.bySid.get(m.sid) : undefined
        // Checked like a socket frame: only a notification of this stream's account, chain, solver and protocol.
        if (listener && belongsTo(m.n, this.mine.get(listener)!)) listener.notification(m.n)
        else this.dropped++
        return
      }
      case 'e': {
        const listener = m.tab === this.leader ? this.bySid.get(m.sid) : undefined
        if (!listener) return
        const deliver = () => {
          const sub = this.mine.get(listener)
          if (!sub) return
          sub.served = true
          listener.event(fromWire(m.e))
        }
        // An error, or a terminal status, is believed only from the tab that holds the lock.
        if (m.e.type === 'error' || m.e.status === 'closed') this.whenLeader(m.tab, deliver)
        else deliver()
        return
      }
      case 'c':
        if (m.tab === this.leader) this.whenLeader(m.tab, () => this.bySid.get(m.sid)?.complete())
        return
    }
  }

  /**
   * Runs `then` once the locks confirm that `tab` holds the pool's lock (its `:leader:<id>` lock is
   * held by the same client as the pool's lock); a claim they do not confirm is dropped and counted.
   * Same-origin pages share the channel, so a message says nothing about who sent it; the locks do.
   */
  private whenLeader(tab: string, then: () => void): void {
    // A Web Locks implementation without query() (none known) cannot check: claims are taken as they come.
    if (typeof this.locks.query !== 'function') {
      then()
      return
    }
    void this.leaderTab().then((holder) => {
      if (this.closed) return
      if (holder === tab) then()
      else this.dropped++
    })
  }

  /** The id of the tab holding the pool's lock, as the Web Locks manager reports it. */
  private async leaderTab(): Promise<string | undefined> {
    const held = (await this.locks.query!().catch(() => ({ held: [] }))).held ?? []
    const main = held.find((l) => l.name === this.lockName)
    if (!main) return undefined
    const prefix = `${this.lockName}:leader:`
    const claims = held.filter((l) => l.name?.startsWith(prefix) && l.clientId === main.clientId)
    return claims.length === 1 ? claims[0]!.name!.slice(prefix.length) : undefined
  }

  /** Takes a lock of this tab's own (granted at once: nobody else asks for it) and holds it until `release` is called. */
  private holdLock(name: string, granted: (release: () => void) => void): void {
    this.locks
      // A pool closed before the lock came lets it go at once (it would otherwise be held for ever).
      .request(name, {}, () => new Promise<void>((resolve) => (this.closed ? resolve() : granted(resolve))))
      .catch(() => {})
  }

  private seen(tab: string): void {
    const peer = this.peers.get(tab)
    if (peer) peer.seenAt = Date.now()
  }

  /** A new leader: every stream here asks it to be served. */
  private follow(tab: string): void {
    this.leader = tab
    for (const [listener, sub] of this.mine) {
      this.gap(listener, sub, 'another tab holds the sockets now')
      this.subscribeRemote(sub)
    }
  }
}
