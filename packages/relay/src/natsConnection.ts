import type { NatsConnection } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import { redactCause, redactText, redactUrl } from '@solver-notifications/core'
import { RelayError } from './RelayError.js'

/**
 * Where the relay's NATS is: a connection you own (left open), or servers to connect to.
 *
 * @example
 * const nats: NatsTarget = { servers: 'nats://127.0.0.1:4222' }
 */
export type NatsTarget = NatsConnection | { servers: string | string[] }

/** Connects, or reports which servers did not answer and how to fix it; reconnects for ever once connected. */
export async function openNats(target: NatsTarget, name: string): Promise<{ nc: NatsConnection; owned: boolean }> {
  if (target && typeof (target as NatsConnection).publish === 'function') return { nc: target as NatsConnection, owned: false }
  const servers = (target as { servers?: unknown })?.servers
  const list = typeof servers === 'string' ? [servers] : Array.isArray(servers) ? servers : undefined
  if (!list || list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
    const shown = Array.isArray(servers) ? servers.map((s) => (typeof s === 'string' ? redactUrl(s) : s)) : typeof servers === 'string' ? redactUrl(servers) : servers
    throw new RelayError('INVALID_PARAMETERS', `nats must be a connection or { servers: 'nats://host:4222' } (or a list), got ${JSON.stringify(shown)}`)
  }
  try {
    const nc = await connect({ servers: list, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5_000 })
    return { nc, owned: true }
  } catch (cause) {
    // Server URLs carry user:password@ (and tokens): never printed.
    throw new RelayError(
      'NATS_UNREACHABLE',
      `No NATS server answered at ${list.map(redactUrl).join(', ')} (${redactText((cause as Error)?.message ?? String(cause))}). Start one with JetStream (nats-server -js) or pass the right --nats / NATS_URL.`,
      { cause: redactCause(cause) },
    )
  }
}
