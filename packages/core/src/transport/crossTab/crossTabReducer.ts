import type { Notification } from '../../protocol/types.js'
import type { Address } from '../../utils/address.js'
import {
  type CrossTabEffect, type CrossTabEvent, type CrossTabState, type Outgoing, type TabStream,
  belongsTo, goneMs, livePeers,
} from './crossTabState.js'
import type { WireEvent } from './tabMessages.js'

/** How many delivered notifications a stream remembers to drop late copies of (see `TabStream.recent`). */
const RECENT = 512
const CONNECTING = Object.freeze({ type: 'status', status: 'connecting', attempt: 0 } as const)

/** The working copy of one transition: the state so far and its effects. */
class Step {
  s: CrossTabState
  readonly fx: CrossTabEffect[] = []
  readonly now: number
  constructor(s: CrossTabState, now: number) {
    this.s = s
    this.now = now
  }
  set(patch: Partial<CrossTabState>): void {
    this.s = { ...this.s, ...patch }
  }
  put(st: TabStream): void {
    const streams = new Map(this.s.streams)
    streams.set(st.sid, st)
    this.set({ streams })
  }
  send(m: Outgoing): void {
    this.fx.push({ do: 'send', m })
  }
  /** Every stream, each replaced by what `f` makes of it (one copy of the map, only if one changed). */
  each(f: (st: TabStream) => TabStream): void {
    let streams: Map<string, TabStream> | undefined
    for (const st of [...this.s.streams.values()]) {
      const next = f(st)
      if (next === st) continue
      streams ??= new Map(this.s.streams)
      streams.set(st.sid, next)
    }
    if (streams) this.set({ streams })
  }
}

/**
 * The one transition function of the cross-tab pool: the state after `event` at `now`, and what to do.
 *
 * @example
 * const { state, effects } = reduceCrossTab(state, { t: 'lead' }, performance.now())
 */
export function reduceCrossTab(s: CrossTabState, event: CrossTabEvent, now: number): { state: CrossTabState; effects: CrossTabEffect[] } {
  if (s.closed) return { state: s, effects: [] }
  const step = new Step(s, now)
  apply(step, event)
  return { state: step.s, effects: step.fx }
}

function apply(x: Step, e: CrossTabEvent): void {
  const { s } = x
  switch (e.t) {
    case 'acquire': {
      const st: TabStream = { sid: e.sid, solver: e.solver, account: e.account, serve: 'waiting', due: undefined, fallback: false, handover: undefined, recent: new Set() }
      // Whoever serves it announces the current status, as the local pool does.
      if (s.role === 'leader') {
        x.put({ ...st, serve: 'own' })
        x.fx.push({ do: 'serve', sid: e.sid })
        return
      }
      // Not served until the leader has it: nothing reaches it meanwhile, so it is `connecting` (a resume
      // stream then backfills what was published until the leader's `open` reaches it).
      if (!e.announced) x.fx.push({ do: 'event', sid: e.sid, e: CONNECTING })
      x.put(ask(x, st))
      return
    }
    case 'release': {
      const st = s.streams.get(e.sid)
      if (!st) return
      endHandover(x, st)
      const streams = new Map(x.s.streams)
      streams.delete(e.sid)
      x.set({ streams })
      if (st.serve === 'own') x.fx.push({ do: 'unserve', sid: st.sid, retired: false })
      else if (s.role === 'follower' && s.leader) x.send({ t: 'unsub', to: s.leader, sid: st.sid })
      return
    }
    case 'close':
      close(x)
      return
    case 'lead':
      lead(x)
      return
    case 'announce':
      x.set({ announcedSelf: true })
      x.send({ t: 'leader' })
      x.fx.push({ do: 'beat' })
      return
    case 'lost':
      if (s.role === 'leader') becomeFollower(x, s.announced !== s.id ? s.announced : undefined)
      return
    case 'time':
      time(x, e.visible)
      return
    case 'opened': {
      const st = s.streams.get(e.sid)
      if (st) x.put(opened(x, st))
      return
    }
    case 'own': {
      const st = s.streams.get(e.sid)
      if (st) deliver(x, st, e.n, e.key)
      return
    }
    case 'heard':
      heard(x, e)
      return
    case 'dropped':
      x.set({ dropped: s.dropped + 1 })
      return
    case 'fallback':
      x.set({ fallbacks: s.fallbacks + 1 })
      return
    case 'follow':
      if (s.leader !== e.tab && s.role === 'follower') follow(x, e.tab)
      return
    case 'announced':
      x.set({ announced: e.tab })
      // Still leading: this tab loses the lock in a moment (stolen), and follows then.
      if (s.role !== 'leader' && s.leader !== e.tab) follow(x, e.tab)
      return
    case 'handoff':
      if (s.role === 'follower') x.fx.push({ do: 'steal' })
      return
    case 'remote':
      remote(x, e.sid, e.e)
      return
    case 'complete': {
      const st = s.streams.get(e.sid)
      if (st && st.serve !== 'own') x.fx.push({ do: 'complete', sid: e.sid })
      return
    }
    case 'gone': {
      if (e.bye) {
        const peers = new Map(s.peers)
        peers.delete(e.tab)
        x.set({ peers })
      } else unwatch(x, e.tab)
      forget(x, e.tab)
      return
    }
    case 'unwatch':
      unwatch(x, e.tab)
      return
  }
}

/** A message from another tab. */
function heard(x: Step, e: Extract<CrossTabEvent, { t: 'heard' }>): void {
  const { m } = e
  const { s } = x
  if ('to' in m && m.to !== s.id) {
    seen(x, m.tab)
    return
  }
  switch (m.t) {
    case 'beat': {
      // A tab we have not heard before learns who leads at once, not at the next beat.
      if (s.role === 'leader' && s.announcedSelf && !s.peers.has(m.tab)) x.send({ t: 'leader' })
      // A claim to lead counts only once the locks confirm it; a forged beat changes nothing.
      const peers = new Map(s.peers)
      peers.set(m.tab, { visible: m.visible, leader: m.leader && m.tab === s.leader, once: m.once, seenAt: x.now })
      x.set({ peers })
      if (m.leader && s.role === 'follower' && s.leader !== m.tab) x.fx.push({ do: 'confirm', tab: m.tab, next: { t: 'follow', tab: m.tab } })
      return
    }
    case 'leader':
      seen(x, m.tab)
      x.fx.push({ do: 'confirm', tab: m.tab, next: { t: 'announced', tab: m.tab } })
      return
    case 'bye':
      // Only a tab that really closed lets go of its `:alive:` lock: wait for it (a closing tab releases
      // it a moment after its bye); a tab still holding it after `goneMs` did not say bye.
      x.fx.push({ do: 'watch', tab: m.tab, waitMs: goneMs(s), bye: true })
      return
    case 'handoff':
      if (s.role === 'follower') x.fx.push({ do: 'confirm', tab: m.tab, next: { t: 'handoff' } })
      return
    case 'sub': {
      seen(x, m.tab)
      if (s.role !== 'leader') return
      if (e.refusal) {
        x.send({ t: 'e', to: m.tab, sid: m.sid, e: e.refusal })
        return
      }
      const key = `${m.tab}|${m.sid}`
      const forwards = new Set(x.s.forwards)
      forwards.add(key)
      x.set({ forwards })
      // `forward` replaces a forward of the same key (the tab asked again).
      x.fx.push({ do: 'forward', key, tab: m.tab, sid: m.sid, solver: e.solver!, account: m.account as Address })
      return
    }
    case 'unsub':
      unforward(x, `${m.tab}|${m.sid}`)
      return
    case 'n': {
      const st = s.streams.get(m.sid)
      // From the stream's server (the leader, unless this tab serves it itself), or its old server during
      // a handover; checked like a socket frame: only a notification of this stream.
      const server = st !== undefined && ((m.tab === s.leader && st.serve !== 'own') || (st.handover !== undefined && st.handover.from === m.tab))
      if (st && server && belongsTo(m.n, st)) deliver(x, st, m.n, e.key!)
      else x.set({ dropped: s.dropped + 1 })
      return
    }
    case 'e':
      if (m.tab !== s.leader || !s.streams.has(m.sid)) return
      // An error, or a terminal status, is believed only from the tab that holds the lock.
      if (m.e.type === 'error' || m.e.status === 'closed') x.fx.push({ do: 'confirm', tab: m.tab, next: { t: 'remote', sid: m.sid, e: m.e } })
      else remote(x, m.sid, m.e)
      return
    case 'c':
      if (m.tab === s.leader) x.fx.push({ do: 'confirm', tab: m.tab, next: { t: 'complete', sid: m.sid } })
      return
    case 'hq':
      seen(x, m.tab)
      if (s.role === 'leader') x.fx.push({ do: 'answer', m })
      return
    case 'hr':
      if (m.tab === s.leader) x.fx.push({ do: 'answered', m })
      return
  }
}

/** Any message from a tab shows it is alive. */
function seen(x: Step, tab: string): void {
  const peer = x.s.peers.get(tab)
  if (!peer) return
  const peers = new Map(x.s.peers)
  peers.set(tab, { ...peer, seenAt: x.now })
  x.set({ peers })
}

/** The stream asks the leader to serve it (when one is known), answered by a deadline. */
function ask(x: Step, st: TabStream): TabStream {
  const { leader, id } = x.s
  if (!leader || leader === id) return st
  x.send({ t: 'sub', to: leader, sid: st.sid, chainId: st.solver.chainId, solverId: st.solver.solverId, account: st.account })
  // No wait without a deadline: a leader that does not answer (it drops the message) leaves the stream
  // to this tab's own pool, rather than `connecting` for ever.
  return { ...st, serve: 'asked', due: x.now + 3 * x.s.beatMs }
}

/** A stream that was being served loses its server: `reconnecting`, so resume streams know there is a gap. */
function gap(x: Step, st: TabStream, reason: string): TabStream {
  if (st.serve !== 'remote' && st.serve !== 'own') return st
  x.fx.push({ do: 'event', sid: st.sid, e: { type: 'status', status: 'reconnecting', attempt: 1, closeReason: reason } })
  return { ...st, serve: 'waiting', due: undefined, fallback: false }
}

/**
 * The stream's server changes; the old one (`from`, `undefined` for this tab's own lease) keeps
 * delivering for a moment. A server replaced before it opened carries nothing yet: the old server of
 * the handover under way stays the one (two handoffs in a row lost what was published meanwhile).
 */
function handover(x: Step, st: TabStream, from: string | undefined): TabStream {
  if (st.handover && !st.handover.ending) {
    if (from === undefined) x.fx.push({ do: 'unserve', sid: st.sid, retired: false })
    else if (from !== x.s.leader && from !== st.handover.from) x.send({ t: 'unsub', to: from, sid: st.sid })
    return st
  }
  const ended = endHandover(x, st)
  if (from === undefined) x.fx.push({ do: 'retire', sid: st.sid })
  return { ...ended, handover: { from, due: x.now + 10 * x.s.beatMs, ending: false } }
}

/** The stream's new server opened: the old one stops a moment later (what it still carries arrives meanwhile). */
function opened(x: Step, st: TabStream): TabStream {
  if (!st.handover || st.handover.ending) return st
  return { ...st, handover: { ...st.handover, ending: true, due: x.now + x.s.beatMs } }
}

/** The old server lets go of the stream. */
function endHandover(x: Step, st: TabStream): TabStream {
  const h = st.handover
  if (!h) return st
  if (h.from === undefined) x.fx.push({ do: 'unserve', sid: st.sid, retired: true })
  // The old leader forwards no more (not when it leads again: that forward is the stream's server).
  else if (h.from !== x.s.leader) x.send({ t: 'unsub', to: h.from, sid: st.sid })
  return { ...st, handover: undefined }
}

/**
 * Hands a notification to a stream once, whoever brings it: two servers deliver during a handover,
 * and a late copy from the old one may come after it ended (a busy tab: seconds late).
 */
function deliver(x: Step, st: TabStream, n: Notification, key: string): void {
  if (st.recent.has(key)) return
  st.recent.add(key)
  // The oldest goes: a late copy is at most a handover's worth of notifications behind.
  if (st.recent.size > RECENT) st.recent.delete(st.recent.values().next().value!)
  x.fx.push({ do: 'notify', sid: st.sid, n })
}

/** A status or error from the leader for one of this tab's streams. */
function remote(x: Step, sid: string, e: WireEvent): void {
  let st = x.s.streams.get(sid)
  if (!st || st.serve === 'own') return
  st = { ...st, serve: 'remote', due: undefined }
  if (e.type === 'status' && e.status === 'open') st = opened(x, st)
  x.put(st)
  x.fx.push({ do: 'event', sid, e })
}

function lead(x: Step): void {
  const before = x.s.leader
  const { id } = x.s
  x.set({ role: 'leader', leader: id, announced: id, announcedSelf: false })
  x.fx.push({ do: 'role', role: 'leader', leader: id })
  x.each((st) => {
    // Served by this tab's pool already (a leader that did not answer): it stays so.
    if (st.serve === 'own') return { ...st, fallback: false, due: undefined }
    // The tab that led may still be forwarding (it handed the sockets over): it does until this tab's socket serves the stream.
    if (st.serve === 'remote' && before !== undefined && before !== id) st = handover(x, st, before)
    st = gap(x, st, 'this tab now holds the sockets')
    x.fx.push({ do: 'serve', sid: st.sid })
    return { ...st, serve: 'own', due: undefined }
  })
  // What this tab had asked of the leader it reads itself now.
  x.fx.push({ do: 'asks', to: undefined })
}

function becomeFollower(x: Step, leader: string | undefined): void {
  x.set({ role: 'follower', leader, announcedSelf: false, retireDue: x.now + 12 * x.s.beatMs })
  x.fx.push({ do: 'role', role: 'follower', leader })
  // Make before break: the sockets stay, forwarding to each tab until it is served by the next leader
  // (it says `unsub`) or `retireDue`; this tab's own streams keep them as their old server meanwhile.
  x.each((st) => {
    if (st.serve === 'own') st = handover(x, st, undefined)
    return ask(x, gap(x, st, 'another tab holds the sockets now'))
  })
}

/** A new leader: every stream here asks it to be served. */
function follow(x: Step, tab: string): void {
  const before = x.s.leader
  const { id } = x.s
  x.set({ leader: tab })
  x.each((st) => {
    // Served by this tab itself (the last leader did not answer): this tab's socket serves it until the
    // new leader does; served by the last leader: that one does until then.
    if (st.serve === 'own') st = handover(x, st, undefined)
    else if (st.serve === 'remote' && before !== undefined && before !== tab && before !== id) st = handover(x, st, before)
    return ask(x, gap(x, st, 'another tab holds the sockets now'))
  })
  // History reads asked of the leader before go to this one (an answer of the old one is not believed).
  x.fx.push({ do: 'asks', to: tab })
}

/** The leader went away: every stream it served has a gap until the next one serves it. */
function leaderGone(x: Step): void {
  x.set({ leader: undefined })
  x.each((st) => (st.serve === 'remote' ? gap(x, st, 'the tab holding the sockets went away') : st))
}

/** Deadlines: the beat, each `sub`'s answer, each handover's end, the retired leader's forwards. */
function time(x: Step, visible: boolean): void {
  const { now } = x
  x.each((st) => {
    if (st.handover && st.handover.due <= now) st = endHandover(x, st)
    if (st.serve !== 'asked' || st.due === undefined || st.due > now) return st
    // The leader did not answer in time: this tab serves the stream itself (counted, logged).
    x.set({ fallbacks: x.s.fallbacks + 1 })
    x.fx.push({ do: 'fallback' })
    if (x.s.leader) x.send({ t: 'unsub', to: x.s.leader, sid: st.sid })
    x.fx.push({ do: 'serve', sid: st.sid })
    return { ...st, serve: 'own', due: undefined, fallback: true }
  })
  if (x.s.retireDue !== undefined && x.s.retireDue <= now) {
    // Still a follower: every forward left is one no tab let go of.
    const keys = x.s.role === 'leader' ? [] : [...x.s.forwards]
    x.set({ retireDue: undefined })
    for (const key of keys) unforward(x, key)
  }
  if (x.s.beatDue <= now) beat(x, visible)
}

function beat(x: Step, visible: boolean): void {
  const { now } = x
  x.set({ beatDue: now + x.s.beatMs })
  const gone = [...x.s.peers].filter(([, p]) => now - p.seenAt >= goneMs(x.s)).map(([tab]) => tab)
  if (gone.length > 0) {
    const peers = new Map(x.s.peers)
    for (const tab of gone) peers.delete(tab)
    x.set({ peers })
  }
  for (const tab of gone) silent(x, tab)
  x.fx.push({ do: 'beat' })
  const { s } = x
  const live = livePeers(s, now)
  // A frozen or crashed leader may still hold the lock: the lowest live follower takes it.
  if (s.role === 'follower' && s.leader === undefined && now - s.startedAt > goneMs(s) && live.every(([tab]) => tab > s.id) && !live.some(([, p]) => p.leader)) {
    x.fx.push({ do: 'steal' })
  }
  // A hidden leader gives the sockets to a visible tab when there is one.
  if (s.role === 'leader' && !visible) {
    const to = live.filter(([, p]) => p.visible).map(([tab]) => tab).sort()[0]
    if (to) x.send({ t: 'handoff', to })
  }
}

/**
 * A tab fell silent (frozen, throttled, or gone): if it led, this tab's streams have a gap at once.
 * What it is served stays until the locks say it is gone: a frozen or throttled page keeps its
 * `:alive:` lock and hears everything queued for it when it wakes, while a page that never says `sub`
 * again would be starved if its streams were dropped (docs/guide/cross-tab.md, "Deadlines").
 */
function silent(x: Step, tab: string): void {
  if (x.s.leader === tab) leaderGone(x)
  x.each((st) => (st.handover?.from === tab ? endHandover(x, st) : st))
  if (x.s.watched.has(tab) || ![...x.s.forwards].some((key) => key.startsWith(`${tab}|`))) return
  x.set({ watched: new Set([...x.s.watched, tab]) })
  x.fx.push({ do: 'watch', tab, waitMs: undefined, bye: false })
}

function unwatch(x: Step, tab: string): void {
  const watched = new Set(x.s.watched)
  watched.delete(tab)
  x.set({ watched })
}

/** A tab is gone: the streams it was served are released; if it led, this tab's streams have a gap. */
function forget(x: Step, tab: string): void {
  for (const key of x.s.forwards) if (key.startsWith(`${tab}|`)) unforward(x, key)
  x.each((st) => (st.handover?.from === tab ? endHandover(x, st) : st))
  if (x.s.leader === tab) leaderGone(x)
}

function unforward(x: Step, key: string): void {
  if (!x.s.forwards.has(key)) return
  const forwards = new Set(x.s.forwards)
  forwards.delete(key)
  x.set({ forwards })
  x.fx.push({ do: 'unforward', key })
}

function close(x: Step): void {
  x.send({ t: 'bye' })
  for (const key of x.s.forwards) unforward(x, key)
  x.each((st) => endHandover(x, st))
  // The streams this tab serves itself are ended by its own pool, the others here.
  x.fx.push({ do: 'closeLocal' })
  for (const st of x.s.streams.values()) {
    if (st.serve === 'own') continue
    x.fx.push({ do: 'event', sid: st.sid, e: { type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' } })
    x.fx.push({ do: 'complete', sid: st.sid })
  }
  x.set({ closed: true, streams: new Map(), retireDue: undefined })
}
