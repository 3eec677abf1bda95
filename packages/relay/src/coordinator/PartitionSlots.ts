/**
 * Where one partition this relay leases stands. A slot is made when a take is sent and removed when the
 * lease is given back or lost:
 *
 * - `taking`: the take is in flight; nothing is owned yet.
 * - `claiming`: the lease is ours; its checkpoint record is being claimed (that fences the previous owner's writes).
 * - `reading`: the record is claimed and its accounts are watched; the bucket's read of its keys is under way.
 * - `held`: read; changes come through the bucket's watch.
 * - `releasing`: being handed over — out of its hubs at once, then (after a claim in flight lands) its accounts
 *   stopped and checkpoints written, then (after a renewal in flight lands) the lease given back.
 */
export type SlotPhase = 'taking' | 'claiming' | 'reading' | 'held' | 'releasing'

/** One partition's slot (read-only outside {@link PartitionSlots.apply}). */
export interface Slot {
  readonly phase: SlotPhase
  /** which take this slot is: a result carrying another epoch belongs to a slot that is gone */
  readonly epoch: number
  /** the lease's revision (after the take and each renewal) */
  readonly revision: number
  /** until when a renewal confirmed the lease, less the clock margin: past it, the relay stops publishing */
  readonly confirmedUntil: number
  readonly renewing: boolean
  readonly claim: 'none' | 'inFlight' | 'claimed' | 'failed'
  /** what a release waits for: the claim in flight, the stop (accounts and checkpoints), the renewal in flight */
  readonly waiting?: 'claim' | 'stop' | 'renewal'
}

/**
 * What happens to the slots: the liveness round's steps, the results of the requests the slots asked for, and a
 * drain. A result names the epoch it was asked under.
 */
export type SlotEvent =
  | { type: 'fence'; now: number }
  | { type: 'renew'; partition: number }
  | { type: 'renewed'; partition: number; epoch: number; sentAt: number; result: number | 'lost' | 'unknown' }
  | { type: 'plan'; mine: ReadonlySet<number> }
  | { type: 'take'; partition: number }
  | { type: 'taken'; partition: number; epoch: number; sentAt: number; revision: number | undefined }
  | { type: 'load'; now: number }
  | { type: 'claimed'; partition: number; epoch: number; ok: boolean }
  | { type: 'claimsDone'; batch: ReadonlyArray<{ partition: number; epoch: number }>; claimMs?: number }
  | { type: 'read'; partition: number; epoch: number; ok: boolean }
  | { type: 'release'; partition: number }
  | { type: 'stopped'; partition: number; epoch: number }
  | { type: 'lose'; partition: number; why: string }
  | { type: 'drain' }

/** What the slots ask of the relay; each request's result comes back as a {@link SlotEvent} with the same epoch. */
export type SlotEffect =
  | { type: 'take'; partition: number; epoch: number }
  | { type: 'renew'; partition: number; epoch: number; revision: number }
  /** a take that succeeded when nothing may be taken any more (draining) */
  | { type: 'returnTake'; partition: number; revision: number }
  | { type: 'claim'; batch: Array<{ partition: number; epoch: number }> }
  /** keep the record just claimed and watch its accounts */
  | { type: 'adopt'; partition: number; epoch: number }
  /** the record just claimed is not this slot's to keep */
  | { type: 'discard'; partition: number; epoch: number }
  | { type: 'read'; batch: Array<{ partition: number; epoch: number }>; claimMs?: number }
  /** take the partition's accounts out of their hubs, now */
  | { type: 'detach'; partition: number }
  /** stop its accounts (after what is in flight) and write its checkpoints, then report `stopped` */
  | { type: 'stop'; partition: number; epoch: number }
  | { type: 'giveBack'; partition: number; revision: number }
  /** stop its accounts at once (the lease may be another's) and forget the partition */
  /** `revision`: the lease's last one this relay wrote (a fenced relay's accounts resume if nobody wrote it since) */
  | { type: 'lost'; partition: number; why: string; revision: number }
  /** bring the open accounts in line with the slots */
  | { type: 'reconcile' }

interface MutableSlot {
  phase: SlotPhase
  epoch: number
  revision: number
  confirmedUntil: number
  renewing: boolean
  claim: Slot['claim']
  waiting?: Slot['waiting']
}

/** Why a partition is lost when its renewal was not confirmed in time (NATS away, or too slow): a fence. */
export const FENCED = 'renewal not confirmed in time'

/**
 * The relay's partitions as one state machine: every change to a slot happens in {@link PartitionSlots.apply},
 * one event at a time, and comes back as the effects to run. Ordering rules that were races before live here:
 * a lease is given back only after the claim in flight landed (a late claim would fence the next owner) and
 * after the renewal in flight landed (a give-back by an older revision fails and leaves the lease to expire);
 * a result from an earlier take of the same partition is ignored; nothing is taken while draining.
 *
 * @example
 * const slots = new PartitionSlots({ leaseTtlMs: 15_000, fenceMarginMs: 2_000 })
 * for (const effect of slots.apply({ type: 'take', partition: 3 })) run(effect)
 */
export class PartitionSlots {
  readonly #slots = new Map<number, MutableSlot>()
  readonly #ttl: number
  #epoch = 0
  #draining = false

  constructor(options: { leaseTtlMs: number; fenceMarginMs: number }) {
    this.#ttl = options.leaseTtlMs - options.fenceMarginMs
  }

  /** The slot of a partition, if this relay has one. */
  get(partition: number): Slot | undefined {
    return this.#slots.get(partition)
  }

  /** Every slot, by partition. */
  entries(): IterableIterator<[number, Slot]> {
    return this.#slots.entries()
  }

  get size(): number {
    return this.#slots.size
  }

  get draining(): boolean {
    return this.#draining
  }

  /**
   * When the next held lease runs past what its last renewal confirmed (its `confirmedUntil`): the relay
   * fences then, on a timer of its own, whether or not NATS answers and whatever its round is waiting for.
   */
  nextFence(): number | undefined {
    let next: number | undefined
    for (const slot of this.#slots.values()) if (slot.phase !== 'taking' && (next === undefined || slot.confirmedUntil < next)) next = slot.confirmedUntil
    return next
  }

  /** Whether the lease is this relay's (taken, not yet given back or lost). */
  holds(partition: number): boolean {
    const slot = this.#slots.get(partition)
    return slot !== undefined && slot.phase !== 'taking'
  }

  /** Whether its accounts are this relay's to watch: held and not being handed over. */
  isMine(partition: number, epoch?: number): boolean {
    const slot = this.#slots.get(partition)
    return slot !== undefined && slot.phase !== 'taking' && slot.phase !== 'releasing' && (epoch === undefined || slot.epoch === epoch)
  }

  /** Applies one event; the only place a slot changes. */
  apply(event: SlotEvent): SlotEffect[] {
    const out: SlotEffect[] = []
    switch (event.type) {
      case 'fence':
        // A lease whose renewal was not confirmed in time stops publishing before anyone else may take it.
        for (const [partition, slot] of this.#slots) if (slot.phase !== 'taking' && slot.confirmedUntil <= event.now) this.#lose(partition, FENCED, out)
        break
      case 'renew': {
        const slot = this.#slots.get(event.partition)
        // No renewal starts once the give-back is decided (it would race it), nor beside another.
        if (!slot || slot.phase === 'taking' || slot.renewing || slot.waiting === 'renewal') break
        slot.renewing = true
        out.push({ type: 'renew', partition: event.partition, epoch: slot.epoch, revision: slot.revision })
        break
      }
      case 'renewed':
        this.#renewed(event, out)
        break
      case 'plan':
        for (const [partition, slot] of this.#slots) if (!event.mine.has(partition) && slot.phase !== 'releasing' && slot.phase !== 'taking') this.#release(partition, slot, out)
        break
      case 'take': {
        if (this.#draining || this.#slots.has(event.partition)) break
        const epoch = ++this.#epoch
        this.#slots.set(event.partition, { phase: 'taking', epoch, revision: 0, confirmedUntil: 0, renewing: false, claim: 'none' })
        out.push({ type: 'take', partition: event.partition, epoch })
        break
      }
      case 'taken':
        this.#taken(event, out)
        break
      case 'load': {
        const batch: Array<{ partition: number; epoch: number }> = []
        for (const [partition, slot] of this.#slots) {
          if (slot.phase !== 'claiming' || slot.claim !== 'none') continue
          // Taken so long ago that the lease may have run out: a claim now could fence its next owner.
          if (slot.confirmedUntil <= event.now) {
            this.#lose(partition, FENCED, out)
            continue
          }
          slot.claim = 'inFlight'
          batch.push({ partition, epoch: slot.epoch })
        }
        if (batch.length > 0) out.push({ type: 'claim', batch })
        break
      }
      case 'claimed':
        this.#claimed(event, out)
        break
      case 'claimsDone': {
        const batch = event.batch.filter(({ partition, epoch }) => this.#slots.get(partition)?.epoch === epoch && this.#slots.get(partition)?.phase === 'reading')
        if (batch.length > 0) out.push({ type: 'read', batch, claimMs: event.claimMs })
        break
      }
      case 'read': {
        const slot = this.#current(event.partition, event.epoch)
        // A held partition is read again when its first read found none of its record's accounts.
        if (!slot || (slot.phase !== 'reading' && slot.phase !== 'held')) break
        // A partition whose accounts could not be read is given back, never held without them.
        if (event.ok) slot.phase = 'held'
        else this.#release(event.partition, slot, out)
        break
      }
      case 'release': {
        const slot = this.#slots.get(event.partition)
        if (slot && slot.phase !== 'taking' && slot.phase !== 'releasing') this.#release(event.partition, slot, out)
        break
      }
      case 'stopped': {
        const slot = this.#current(event.partition, event.epoch)
        if (slot?.waiting !== 'stop') break
        this.#giveBackWhenQuiet(event.partition, slot, out)
        break
      }
      case 'lose':
        if (this.holds(event.partition)) this.#lose(event.partition, event.why, out)
        break
      case 'drain':
        this.#draining = true
        for (const [partition, slot] of this.#slots) if (slot.phase !== 'taking' && slot.phase !== 'releasing') this.#release(partition, slot, out)
        break
    }
    return out
  }

  #current(partition: number, epoch: number): MutableSlot | undefined {
    const slot = this.#slots.get(partition)
    return slot?.epoch === epoch ? slot : undefined
  }

  #taken(event: Extract<SlotEvent, { type: 'taken' }>, out: SlotEffect[]): void {
    const slot = this.#current(event.partition, event.epoch)
    if (slot?.phase !== 'taking') {
      if (event.revision !== undefined) out.push({ type: 'returnTake', partition: event.partition, revision: event.revision })
      return
    }
    if (event.revision === undefined) {
      this.#slots.delete(event.partition)
      return
    }
    if (this.#draining) {
      this.#slots.delete(event.partition)
      out.push({ type: 'returnTake', partition: event.partition, revision: event.revision })
      return
    }
    slot.phase = 'claiming'
    slot.revision = event.revision
    slot.confirmedUntil = event.sentAt + this.#ttl
  }

  #claimed(event: Extract<SlotEvent, { type: 'claimed' }>, out: SlotEffect[]): void {
    const slot = this.#current(event.partition, event.epoch)
    if (slot?.claim !== 'inFlight') {
      // Lost (and maybe taken again, with a claim of its own) meanwhile: this claim is not the one to keep.
      if (event.ok) out.push({ type: 'discard', partition: event.partition, epoch: event.epoch })
      return
    }
    slot.claim = event.ok ? 'claimed' : 'failed'
    if (event.ok) out.push({ type: 'adopt', partition: event.partition, epoch: event.epoch })
    if (slot.phase === 'releasing') {
      // The release waited for this claim: now its accounts stop and its checkpoints are written.
      if (slot.waiting === 'claim') this.#stop(event.partition, slot, out)
      return
    }
    if (event.ok) {
      slot.phase = 'reading'
      out.push({ type: 'reconcile' })
    } else this.#release(event.partition, slot, out)
  }

  #renewed(event: Extract<SlotEvent, { type: 'renewed' }>, out: SlotEffect[]): void {
    const slot = this.#current(event.partition, event.epoch)
    if (!slot) return
    slot.renewing = false
    if (typeof event.result === 'number') {
      slot.revision = event.result
      slot.confirmedUntil = event.sentAt + this.#ttl
    } else if (event.result === 'lost') {
      this.#lose(event.partition, 'another relay holds it', out)
      return
    }
    // 'unknown': NATS slow or away; still held as far as anyone knows, until the lease can have run out.
    if (slot.waiting === 'renewal') this.#giveBackWhenQuiet(event.partition, slot, out)
  }

  #release(partition: number, slot: MutableSlot, out: SlotEffect[]): void {
    slot.phase = 'releasing'
    // Out of their hubs now, in the event the release was decided: partitions released together shrink each hub once.
    out.push({ type: 'detach', partition })
    // A claim in flight lands first: given back before it, the lease could reach a relay whose claim ours would then overwrite.
    if (slot.claim === 'inFlight') slot.waiting = 'claim'
    else this.#stop(partition, slot, out)
  }

  #stop(partition: number, slot: MutableSlot, out: SlotEffect[]): void {
    slot.waiting = 'stop'
    out.push({ type: 'stop', partition, epoch: slot.epoch })
  }

  /** The give-back, once no renewal is in flight: one that lands after it would move the revision and leave the lease to expire. */
  #giveBackWhenQuiet(partition: number, slot: MutableSlot, out: SlotEffect[]): void {
    if (slot.renewing) {
      slot.waiting = 'renewal'
      return
    }
    this.#slots.delete(partition)
    out.push({ type: 'giveBack', partition, revision: slot.revision })
  }

  #lose(partition: number, why: string, out: SlotEffect[]): void {
    const revision = this.#slots.get(partition)?.revision ?? 0
    this.#slots.delete(partition)
    out.push({ type: 'lost', partition, why, revision })
  }
}
