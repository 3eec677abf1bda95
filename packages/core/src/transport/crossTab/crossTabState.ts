import type { ResolvedSolver } from '../../config/types.js'
import type { Notification } from '../../protocol/types.js'
import type { Address } from '../../utils/address.js'
import type { TabMessage, WireEvent } from './tabMessages.js'

/**
 * The cross-tab pool as one value and one function (docs/architecture.md, "Cross-tab"): who leads,
 * which tab serves each stream, the other tabs' beats and every deadline. `CrossTabPool` parses what
 * arrives, dispatches it here and runs the effects; nothing else writes this state, and time comes in
 * as `now`, so a model runs every tab of a browser in one process in milliseconds.
 */
export interface CrossTabState {
  readonly id: string
  /** every deadline is a multiple of it: gone 3.5 beats, a `sub` answered 3, a handover 10, a retired leader 12 */
  readonly beatMs: number
  readonly role: 'leader' | 'follower'
  /** the tab this one follows (the locks confirmed it), or itself when it leads */
  readonly leader: string | undefined
  /** the last tab the locks confirmed as leader */
  readonly announced: string | undefined
  /** this tab's `:leader:` lock is held: new tabs are told at once */
  readonly announcedSelf: boolean
  readonly closed: boolean
  readonly startedAt: number
  readonly beatDue: number
  /** after losing the lock, the forwards no tab let go of end then */
  readonly retireDue: number | undefined
  readonly streams: ReadonlyMap<string, TabStream>
  /** the streams of other tabs this one forwards to, as `tab|sid` */
  readonly forwards: ReadonlySet<string>
  readonly peers: ReadonlyMap<string, Peer>
  /** silent tabs this one serves, waiting for the locks to say they are gone */
  readonly watched: ReadonlySet<string>
  readonly dropped: number
  readonly fallbacks: number
}

/** What a tab knows of another from its beats. */
export interface Peer {
  readonly visible: boolean
  readonly seenAt: number
  /** it leads (believed only for the tab the locks confirmed) */
  readonly leader: boolean
  /** the `notifyOnce` keys it claims */
  readonly once: readonly string[]
}

/**
 * One stream of this tab. `waiting`: no leader known; `asked`: its `sub` went to the leader, answered
 * by `due`; `remote`: the leader serves it; `own`: this tab's pool does (it leads, or `fallback`: the
 * leader did not answer in time).
 */
export interface TabStream {
  readonly sid: string
  readonly solver: ResolvedSolver
  readonly account: Address
  readonly serve: 'waiting' | 'asked' | 'remote' | 'own'
  readonly due: number | undefined
  readonly fallback: boolean
  /** its server changed and the old one still delivers, for a moment (see {@link Handover}) */
  readonly handover: Handover | undefined
  /**
   * what it was given last, by content key, whoever served it: a copy is dropped, during a handover or
   * after it (a copy of what one server delivered arrives late from the other). The one part of the
   * state mutated in place, by the reducer alone: it is a bounded memory, not a decision.
   */
  readonly recent: Set<string>
}

/**
 * A stream whose server changed (a handoff, a leader stolen from, a fallback) keeps its old server's
 * notifications until the new one has served it a moment, so what was published while the new socket
 * was still dialing is not lost (rasa keeps only each quote's latest state: history cannot bring the
 * transitions back). The old server's status events are not the stream's any more
 * (docs/guide/cross-tab.md, "Handoff").
 */
export interface Handover {
  /** the old server: the tab that led, or `undefined` for this tab's own retired lease */
  readonly from: string | undefined
  readonly due: number
  /** the new server opened: the end is near */
  readonly ending: boolean
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** A message of this tab, before its version and sender are added. */
export type Outgoing = DistributiveOmit<TabMessage, 'v' | 'tab'>

/** Everything that reaches the pool. `heard` messages are parsed and not this tab's own. */
export type CrossTabEvent =
  | { t: 'acquire'; sid: string; solver: ResolvedSolver; account: Address; announced: boolean }
  | { t: 'release'; sid: string }
  | { t: 'close' }
  /** the locks: this tab holds the pool's lock, its `:leader:` proof, or lost the lock */
  | { t: 'lead' }
  | { t: 'announce' }
  | { t: 'lost' }
  /** a deadline passed (the beat among them) */
  | { t: 'time'; visible: boolean }
  /** this tab's own lease of a stream: its socket opened, or it delivers */
  | { t: 'opened'; sid: string }
  | { t: 'own'; sid: string; n: Notification; key: string }
  /** `key`: an `n`'s content key; `solver`: a `sub`'s, or `refusal` when this tab does not know it */
  | { t: 'heard'; m: TabMessage; key?: string; solver?: ResolvedSolver; refusal?: WireEvent }
  /** a message refused (malformed, or a claim the locks did not confirm); a history read this tab made itself */
  | { t: 'dropped' }
  | { t: 'fallback' }
  /** the locks confirmed a claim (see the `confirm` effect) */
  | { t: 'follow'; tab: string }
  | { t: 'announced'; tab: string }
  | { t: 'handoff' }
  | { t: 'remote'; sid: string; e: WireEvent }
  | { t: 'complete'; sid: string }
  /** the locks say a tab is gone (after its bye, or silent), or a silent one is not watched any more */
  | { t: 'gone'; tab: string; bye: boolean }
  | { t: 'unwatch'; tab: string }

/** What the pool does for a transition, in order. */
export type CrossTabEffect =
  | { do: 'send'; m: Outgoing }
  | { do: 'beat' }
  | { do: 'event'; sid: string; e: WireEvent }
  | { do: 'notify'; sid: string; n: Notification }
  | { do: 'complete'; sid: string }
  /** take a lease on this tab's pool for the stream; retire it (it still delivers); release it or the retired one */
  | { do: 'serve'; sid: string }
  | { do: 'retire'; sid: string }
  | { do: 'unserve'; sid: string; retired: boolean }
  | { do: 'forward'; key: string; tab: string; sid: string; solver: ResolvedSolver; account: Address }
  | { do: 'unforward'; key: string }
  | { do: 'steal' }
  /** ask the locks whether `tab` leads; `next` is dispatched if so, `dropped` if not */
  | { do: 'confirm'; tab: string; next: CrossTabEvent }
  /** wait for `tab`'s `:alive:` lock (`waitMs` at most): `gone` then, else `dropped` (bye) or `unwatch` */
  | { do: 'watch'; tab: string; waitMs: number | undefined; bye: boolean }
  /** the history reads asked of a leader go to `to`, or are read here (`to` undefined: this tab leads) */
  | { do: 'asks'; to: string | undefined }
  | { do: 'answer'; m: Extract<TabMessage, { t: 'hq' }> }
  | { do: 'answered'; m: Extract<TabMessage, { t: 'hr' }> }
  | { do: 'role'; role: 'leader' | 'follower'; leader: string | undefined }
  | { do: 'fallback' }
  /** this tab's own pool closes (it ends the streams it serves) */
  | { do: 'closeLocal' }


/**
 * A new tab's state: a follower that knows no leader, its first beat due now.
 *
 * @example
 * let state = initialCrossTab('tab-1', 1_000, performance.now())
 */
export function initialCrossTab(id: string, beatMs: number, now: number): CrossTabState {
  return {
    id, beatMs, role: 'follower', leader: undefined, announced: undefined, announcedSelf: false, closed: false,
    startedAt: now, beatDue: now, retireDue: undefined, streams: new Map(), forwards: new Set(), peers: new Map(),
    watched: new Set(), dropped: 0, fallbacks: 0,
  }
}

/**
 * How long a tab may be silent before it counts as gone.
 *
 * @example
 * goneMs(state) // 3_500 with a 1 s beat
 */
export const goneMs = (s: Pick<CrossTabState, 'beatMs'>): number => 3.5 * s.beatMs

/**
 * The tabs heard within `goneMs`.
 *
 * @example
 * const tabs = 1 + livePeers(state, now).length
 */
export function livePeers(s: CrossTabState, now: number): Array<[string, Peer]> {
  return [...s.peers].filter(([, p]) => now - p.seenAt < goneMs(s))
}

/**
 * The earliest deadline of the state: the pool keeps one timer, for it.
 *
 * @example
 * timers.set(() => dispatch({ t: 'time', visible }), nextDue(state) - now)
 */
export function nextDue(s: CrossTabState): number {
  let due = Math.min(s.beatDue, s.retireDue ?? Infinity)
  for (const st of s.streams.values()) due = Math.min(due, st.due ?? Infinity, st.handover?.due ?? Infinity)
  return due
}

/** Whether a forwarded notification is one of this stream's: the same checks a socket frame passes. */
export function belongsTo(n: Notification, st: { solver: ResolvedSolver; account: Address }): boolean {
  return (
    n.account.toLowerCase() === st.account.toLowerCase() &&
    n.chainId === st.solver.chainId &&
    n.solverId === st.solver.solverId &&
    n.protocol === st.solver.notifications.protocol
  )
}
