/**
 * The one clock of a relay's coordinator (docs/architecture.md, "Coordinator, one writer"): the time its
 * decisions are made at and the timers it arms (the timed fence, the rounds, the kept accounts' bound,
 * a partition read again). Wall-clock milliseconds, because leases carry wall-clock expiries that other
 * relays read. Handed down from `startRelay`, so a test runs the coordinator on a clock it moves itself.
 *
 * @example
 * const clock: RelayClock = systemClock
 * const timer = clock.set(() => console.log('fence'), 1_000)
 * clock.clear(timer)
 */
export interface RelayClock {
  /** milliseconds since the epoch */
  now(): number
  /** runs `fn` once after `ms`; the handle is for {@link RelayClock.clear} */
  set(fn: () => void, ms: number): RelayTimer
  clear(timer: RelayTimer | undefined): void
}

/** A timer of a {@link RelayClock}: only the clock that armed it knows what it is. */
export type RelayTimer = { readonly __relayTimer?: never } | object

/**
 * The system's clock: `Date.now()` and unref'd timers (a coordinator's timer alone never keeps a process
 * alive that has nothing else to do).
 *
 * @example
 * new Coordinator({ ...deps, clock: systemClock })
 */
export const systemClock: RelayClock = {
  now: () => Date.now(),
  set(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms))
    timer.unref?.()
    return timer
  },
  clear(timer) {
    if (timer !== undefined) clearTimeout(timer as ReturnType<typeof setTimeout>)
  },
}
