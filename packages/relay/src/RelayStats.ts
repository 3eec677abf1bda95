/**
 * What a relay has done since it started, and what it holds now.
 *
 * @example
 * const { owned, published, lagMs } = relay.stats()
 */
export interface RelayStats {
  instanceId: string
  /** live relays it sees, itself included */
  instances: number
  /** accounts it holds a lease for and watches */
  owned: number
  /** accounts in the accounts bucket */
  accounts: number
  /** notifications received from the solvers and acknowledged by JetStream (duplicates included) */
  received: number
  published: number
  /** publishes JetStream recognised by `Nats-Msg-Id` as already stored (a takeover overlap) */
  duplicates: number
  /** notifications left out at resume: relayed before, at the checkpoint's exact second */
  skipped: number
  retries: number
  checkpoints: number
  errors: number
  /** publishes waiting for an acknowledgement */
  pending: number
  /** the slowest receive → acknowledged time since the last `stats()` (ms) */
  lagMs: number
}

/** The counters the relay's parts bump. */
export class RelayCounters {
  received = 0
  published = 0
  duplicates = 0
  skipped = 0
  retries = 0
  checkpoints = 0
  errors = 0
  maxLag = 0
  lag(ms: number): void {
    if (ms > this.maxLag) this.maxLag = ms
  }
}
