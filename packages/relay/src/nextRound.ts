/** What a relay knows when it schedules its next liveness round. */
export interface RoundClock {
  now: number
  /** when the last full round (heartbeat and renewals) started */
  lastFull: number
  /** how far apart full rounds start (a third of the lease TTL) */
  interval: number
  /** something changed that the plan should see at once (a relay left, a lease was given back) */
  soon: boolean
  /** when a heartbeat or a lease this relay waits for runs out, if any */
  wakeAt: number | undefined
}

/** How soon after its wake time an early round looks: the expiry has surely passed on this clock by then. */
export const WAKE_SLACK_MS = 50
/** An early round never follows the last one closer than this (a wake time already past retries at this pace, not in a loop). */
export const MIN_EARLY_MS = 100

/**
 * When the next liveness round runs, and whether it is a full one. Full rounds write the heartbeat and
 * renew every held lease, an interval apart however long each took, so the KV write rate stays
 * fixed. An early round only plans and takes: it runs when a heartbeat or a lease this relay waits for
 * runs out, or when the plan changed, so taking over never waits for the next renewal.
 *
 * A wake time that passed while the round that computed it was still running (a lease that ran out
 * a millisecond after its take was refused) is not a reason to wait for the next full round: it is
 * looked at again after {@link MIN_EARLY_MS}.
 *
 * @example
 * const { delay, full } = nextRound({ now: Date.now(), lastFull, interval: 5_000, soon: false, wakeAt: leaseExpiry })
 * setTimeout(() => runRound(full), delay)
 */
export function nextRound(clock: RoundClock): { delay: number; full: boolean } {
  const due = Math.max(0, clock.lastFull + clock.interval - clock.now)
  let early = Number.POSITIVE_INFINITY
  if (clock.soon) early = 0
  else if (clock.wakeAt !== undefined) early = Math.max(MIN_EARLY_MS, clock.wakeAt - clock.now + WAKE_SLACK_MS)
  return early < due ? { delay: early, full: false } : { delay: due, full: true }
}

/** How long the reads of partitions just taken may wait for the rest of a takeover's leases to run out. */
export const READ_TOGETHER_MS = 500

/**
 * Whether a round reads the partitions it just took at once, or leaves them to the next round's read. A dead
 * relay's leases run out a little apart (it renewed them a few at a time): when the rest of the takeover runs
 * out within {@link READ_TOGETHER_MS}, the early round at that moment reads all of them in one read (at scale, one
 * scan of the accounts bucket), where two reads would have the second one run beside the first batch's accounts
 * opening and the next full round (1.4 s instead of 0.3 s on a loaded machine: a re-own 1.7 s after the last
 * lease ran out). A read put off once is never put off again. A round that took nothing has nothing to put off
 * (the round woken by the dead relay's heartbeat running out, a moment before its first lease): it leaves the
 * put-off to the round that takes the first batch.
 *
 * @example
 * if (readNow({ now: Date.now(), taken: 3, waiting: [leases.expiryOf('7')], putOff })) void coordinator.dispatch({ type: 'load', now })
 */
export function readNow(at: { now: number; taken: number; waiting: ReadonlyArray<number | undefined>; putOff: boolean }): boolean {
  if (at.putOff || at.taken === 0) return true
  return !at.waiting.some((expiry) => expiry !== undefined && expiry > at.now && expiry <= at.now + READ_TOGETHER_MS)
}
