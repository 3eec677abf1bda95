/**
 * What went wrong in the relay, as a code a program can act on.
 *
 * @example
 * const code: RelayErrorCode = 'NATS_UNREACHABLE'
 */
export type RelayErrorCode =
  /** the solvers config is missing, unreadable or invalid */
  | 'INVALID_CONFIG'
  /** an option of `startRelay` or the CLI is wrong */
  | 'INVALID_PARAMETERS'
  /** an account key is not `<chainId>.<solverId>.<lowercase account>` */
  | 'INVALID_ACCOUNT_KEY'
  /** no NATS server answered at the given servers */
  | 'NATS_UNREACHABLE'
  /** NATS answered but refused the credentials (token, user and password, creds) */
  | 'NATS_AUTH'
  /** the JetStream stream exists with subjects that do not cover the relay's */
  | 'STREAM_CONFLICT'
  /** NATS answered, but JetStream is off or refused a request */
  | 'JETSTREAM'
  /** another relay is running with the same instance id (its heartbeat is fresh) */
  | 'INSTANCE_CONFLICT'
  /** relays of another ownership layout are running, or the deployment's partitions differ from the ones asked */
  | 'LAYOUT'

/**
 * A typed relay error: a code and a message that says how to fix it.
 *
 * @example
 * try { await startRelay(options) } catch (e) { if (e instanceof RelayError && e.code === 'NATS_UNREACHABLE') retryLater() }
 */
export class RelayError extends Error {
  override readonly name = 'RelayError'
  constructor(
    readonly code: RelayErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}
