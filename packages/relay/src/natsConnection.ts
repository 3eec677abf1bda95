import { readFileSync } from 'node:fs'
import { type ConnectionOptions, type NatsConnection, credsAuthenticator } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import { redactUrl } from '@solver-notifications/core'
import { redactCause, redactText } from '@solver-notifications/core/internal'
import { RelayError } from './RelayError.js'

/**
 * How to reach a NATS server: its URLs and, for a server that requires them, credentials and TLS.
 * Secrets are never printed (`***`), whatever fails.
 *
 * @example
 * const nats: NatsOptions = { servers: 'tls://nats.internal:4222', creds: '/etc/relay/relay.creds', tls: { ca: '/etc/relay/ca.pem' } }
 */
export interface NatsOptions {
  /** one URL, or several (a cluster): `nats://host:4222`, `tls://host:4222` */
  servers: string | string[]
  /** a server started with `--auth TOKEN` */
  token?: string | undefined
  /** a server with users: `user` and `password` together */
  user?: string | undefined
  password?: string | undefined
  /** path of a `.creds` file (a user JWT and its NKey seed, as `nsc` writes it) */
  creds?: string | undefined
  /** TLS: the CA that signed the server's certificate, and a client certificate and key when the server verifies clients (paths of PEM files) */
  tls?: { ca?: string | undefined; cert?: string | undefined; key?: string | undefined } | undefined
}

/**
 * Where the relay's NATS is: a connection you own (left open), or how to connect to one.
 *
 * @example
 * const nats: NatsTarget = { servers: 'nats://127.0.0.1:4222', token: process.env.NATS_TOKEN }
 */
export type NatsTarget = NatsConnection | NatsOptions

export function isNatsConnection(target: NatsTarget): target is NatsConnection {
  return Boolean(target) && typeof (target as NatsConnection).publish === 'function'
}

/** What to pass to `connect` for these options, every file read and every combination checked first. */
export function natsConnectOptions(target: NatsOptions, name: string): ConnectionOptions {
  const servers = (target as { servers?: unknown })?.servers
  const list = typeof servers === 'string' ? [servers] : Array.isArray(servers) ? servers : undefined
  if (!list || list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
    const shown = Array.isArray(servers) ? servers.map((s) => (typeof s === 'string' ? redactUrl(s) : s)) : typeof servers === 'string' ? redactUrl(servers) : servers
    throw new RelayError('INVALID_PARAMETERS', `nats must be a connection or { servers: 'nats://host:4222' } (or a list), got ${JSON.stringify(shown)}`)
  }
  // Reconnects for as long as the relay runs, through authentication errors too: nats.js gives up after
  // two in a row by default, and a password rotated for a few seconds then left a live process closed
  // for good (docs: the relay README, "When NATS misbehaves").
  const options: ConnectionOptions = { servers: list as string[], name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5_000, ignoreAuthErrorAbort: true }
  const { token, user, password, creds, tls } = target
  for (const [field, value] of Object.entries({ token, user, password, creds })) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) throw new RelayError('INVALID_PARAMETERS', `nats.${field} must be a non-empty string (--nats-${field === 'password' ? 'password' : field})`)
  }
  const ways = [token !== undefined, user !== undefined || password !== undefined, creds !== undefined].filter(Boolean).length
  if (ways > 1) throw new RelayError('INVALID_PARAMETERS', 'Give NATS one way to authenticate: a token (--nats-token), a user and password (--nats-user, --nats-password), or a creds file (--nats-creds).')
  if ((user === undefined) !== (password === undefined)) throw new RelayError('INVALID_PARAMETERS', 'A NATS user needs its password, and a password its user: pass both --nats-user and --nats-password.')
  if (token !== undefined) options.token = token
  if (user !== undefined) {
    options.user = user
    options.pass = password
  }
  if (creds !== undefined) options.authenticator = credsAuthenticator(readPem('--nats-creds', creds, 'a .creds file (nsc generate creds)'))
  if (tls !== undefined) {
    if (typeof tls !== 'object' || tls === null) throw new RelayError('INVALID_PARAMETERS', 'nats.tls must be { ca?, cert?, key? }: paths of PEM files')
    if ((tls.cert === undefined) !== (tls.key === undefined)) throw new RelayError('INVALID_PARAMETERS', 'A TLS client certificate needs its key, and a key its certificate: pass both --tls-cert and --tls-key.')
    // The files are read here, so a wrong path is bad input now, not a handshake failure later.
    options.tls = {
      ...(tls.ca !== undefined && { ca: text(readPem('--tls-ca', tls.ca, 'the PEM of the CA that signed the server certificate')) }),
      ...(tls.cert !== undefined && { cert: text(readPem('--tls-cert', tls.cert, 'a PEM client certificate')) }),
      ...(tls.key !== undefined && { key: text(readPem('--tls-key', tls.key, 'the PEM key of the client certificate')) }),
    }
  }
  return options
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

function readPem(flag: string, path: unknown, what: string): Uint8Array {
  if (typeof path !== 'string' || path === '') throw new RelayError('INVALID_PARAMETERS', `${flag} must be the path of ${what}`)
  try {
    return readFileSync(path)
  } catch (error) {
    throw new RelayError('INVALID_PARAMETERS', `${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it must be ${what}.`)
  }
}

/** Connects, or reports which servers did not answer (or refused the credentials) and how to fix it; reconnects for ever once connected. */
export async function openNats(target: NatsTarget, name: string): Promise<{ nc: NatsConnection; owned: boolean }> {
  if (isNatsConnection(target)) return { nc: target, owned: false }
  const options = natsConnectOptions(target, name)
  const list = options.servers as string[]
  try {
    const nc = await connect(options)
    return { nc, owned: true }
  } catch (cause) {
    const message = redactText((cause as Error)?.message ?? String(cause))
    // Server URLs carry user:password@ (and tokens): never printed.
    if (/authoriz|authenticat|permission/i.test(message)) {
      throw new RelayError(
        'NATS_AUTH',
        `The NATS server at ${list.map(redactUrl).join(', ')} refused the credentials (${message}). Check --nats-token, --nats-user/--nats-password or --nats-creds.`,
        { cause: redactCause(cause) },
      )
    }
    throw new RelayError(
      'NATS_UNREACHABLE',
      `No NATS server answered at ${list.map(redactUrl).join(', ')} (${message}). Start one with JetStream (nats-server -js) or pass the right --nats / NATS_URL${/tls|certificate|ssl/i.test(message) ? '; for TLS check --tls-ca (and --tls-cert/--tls-key when the server verifies clients)' : ''}.`,
      { cause: redactCause(cause) },
    )
  }
}
