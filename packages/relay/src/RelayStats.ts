/**
 * What a relay has done since it started, and what it holds now. Reading it changes nothing.
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
  /**
   * notifications a history backfill brought that JetStream did not have (published while no relay watched
   * the account); on rasa each is a quote's latest state whose earlier transitions in that gap are gone
   * (`solver_relay_recovered_total{protocol}` has them by protocol)
   */
  recovered: number
  /** notifications left out at resume: relayed before, at the checkpoint's exact second */
  skipped: number
  retries: number
  checkpoints: number
  /** errors of every code (`solver_relay_errors_total{code}` has them by code) */
  errors: number
  /** accounts taken over from a relay whose lease expired, and accounts handed over on purpose */
  takeovers: number
  handoffs: number
  /** entries of the accounts bucket its watch delivered: every entry at start, then only changes (a reconnect resumes) */
  bucketEntries: number
  /** publishes waiting for an acknowledgement */
  pending: number
  /** the slowest receive → acknowledged time of the last 10 seconds (ms) */
  lagMs: number
}
