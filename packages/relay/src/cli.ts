import { readFileSync, statSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { isPlausiblePosition, redactText } from '@solver-notifications/core/internal'
import { addAccounts, listAccounts, removeAccounts } from './accountsAdmin.js'
import { migrateDeployment } from './migrate.js'
import { repairConfig } from './repairConfig.js'
import { checkRelaySetup } from './checkRelaySetup.js'
import type { NatsOptions } from './natsConnection.js'
import { DEFAULT_HTTP } from './opsServer.js'
import { RelayError } from './RelayError.js'
import { LOG_LEVELS, type LogLevel, createRelayLogger } from './relayLogger.js'
import { startRelay } from './startRelay.js'

const USAGE = `usage:
  solver-relay --config solvers.json --nats nats://host:4222 [options]     run a relay
  solver-relay check --config solvers.json --nats nats://host:4222         validate, connect, create the stream and buckets; exit 0
  solver-relay accounts add|remove|list [KEY…] --nats URL [--since UNIX_SECONDS]
  solver-relay migrate --nats URL [--partitions N]                           move an older deployment's accounts under their partitions (relays drained first)
  solver-relay repair-config --nats URL [--partitions N]                     rewrite an unreadable deployment config (relays may run)
KEY is <chainId>.<solverId>.<lowercase account>.
relay options: --max-accounts N  --lease-ttl-ms N (1000-600000)  --partitions N (1024; fixed per deployment)  --replicas N (1; 3 on a cluster; check too)  --instance-id ID  --stream NAME  --subject-prefix P  --header 'Name: value' (repeatable)
  --http [HOST:PORT] (/healthz /readyz /metrics; ${DEFAULT_HTTP} without a value)  --log-format json|pretty  --log-level trace|debug|info|warn|error
  --shutdown-timeout-ms N (20000)
NATS options (every command): --nats-token T | --nats-user U --nats-password P | --nats-creds FILE; --tls-ca FILE --tls-cert FILE --tls-key FILE
Every option can come from the environment as SOLVER_RELAY_<OPTION> (SOLVER_RELAY_NATS, SOLVER_RELAY_MAX_ACCOUNTS, …); flags win.
--nats also falls back to NATS_URL. Exit codes: 0 done, 2 bad input (the message says what to fix), 1 NATS unreachable or refusing.`

/** Every option, with its kind: the same table makes the flags and their `SOLVER_RELAY_*` variables. */
const OPTIONS = {
  config: { type: 'string' },
  nats: { type: 'string' },
  'nats-token': { type: 'string' },
  'nats-user': { type: 'string' },
  'nats-password': { type: 'string' },
  'nats-creds': { type: 'string' },
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'max-accounts': { type: 'string' },
  'lease-ttl-ms': { type: 'string' },
  partitions: { type: 'string' },
  replicas: { type: 'string' },
  'instance-id': { type: 'string' },
  stream: { type: 'string' },
  'subject-prefix': { type: 'string' },
  since: { type: 'string' },
  header: { type: 'string', multiple: true },
  http: { type: 'string' },
  'log-format': { type: 'string' },
  'log-level': { type: 'string' },
  'shutdown-timeout-ms': { type: 'string' },
  help: { type: 'boolean' },
} as const

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K] extends { type: 'boolean' } ? boolean : string }

/** `SOLVER_RELAY_MAX_ACCOUNTS` for `max-accounts`. */
const envName = (option: string) => `SOLVER_RELAY_${option.toUpperCase().replace(/-/g, '_')}`

function fail(message: string): never {
  console.error(`solver-relay: ${redactText(message)}\n${USAGE}`)
  process.exit(2)
}

const positiveInt = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive integer, got ${value}`)
  return n
}

/** Flags, then `SOLVER_RELAY_*` for what the flags left out (a `--header` variable holds one header per line). */
function readOptions(argv: string[], env: NodeJS.ProcessEnv): { values: Values; positionals: string[] } {
  // `--http` alone means the default address; parseArgs wants a value after it.
  const args = argv.flatMap((arg, i) => (arg === '--http' && (i === argv.length - 1 || argv[i + 1]!.startsWith('--')) ? [arg, DEFAULT_HTTP] : [arg]))
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS })
  const out = { ...values } as Values & Record<string, unknown>
  for (const [name, spec] of Object.entries(OPTIONS)) {
    const fromEnv = env[envName(name)]
    if (out[name] !== undefined || fromEnv === undefined || fromEnv === '' || spec.type === 'boolean') continue
    out[name] = 'multiple' in spec ? fromEnv.split('\n').filter((l) => l.trim() !== '') : fromEnv
  }
  return { values: out, positionals }
}

function natsOf(values: Values, env: NodeJS.ProcessEnv): NatsOptions {
  const url = values.nats ?? env.NATS_URL
  if (!url) fail(`no NATS: pass --nats nats://host:4222 or set ${envName('nats')} (or NATS_URL)`)
  const tls = values['tls-ca'] ?? values['tls-cert'] ?? values['tls-key']
  return {
    servers: url.split(','),
    token: values['nats-token'],
    user: values['nats-user'],
    password: values['nats-password'],
    creds: values['nats-creds'],
    tls: tls === undefined ? undefined : { ca: values['tls-ca'], cert: values['tls-cert'], key: values['tls-key'] },
  }
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof readOptions>
  try {
    parsed = readOptions(process.argv.slice(2), process.env)
  } catch (error) {
    fail((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help) {
    console.log(USAGE)
    return
  }
  const nats = natsOf(values, process.env)

  if (positionals[0] === 'migrate') {
    if (positionals.length > 1) fail(`unexpected ${positionals.slice(1).join(' ')}`)
    const { moved, partitions, layout } = await migrateDeployment(nats, { partitions: positiveInt('partitions', values.partitions) })
    console.log(`migrated: ${moved} account key(s) moved under their partition; layout ${layout}, ${partitions} partitions`)
    return
  }
  if (positionals[0] === 'repair-config') {
    if (positionals.length > 1) fail(`unexpected ${positionals.slice(1).join(' ')}`)
    const { repaired, partitions, layout, evidence } = await repairConfig(nats, { partitions: positiveInt('partitions', values.partitions) })
    console.log(`${repaired ? 'config repaired' : 'config is readable, nothing written'}: layout ${layout}, ${partitions} partitions (from ${evidence})`)
    return
  }
  if (positionals[0] === 'accounts') {
    const [, action, ...keys] = positionals
    if (action === 'list') {
      for (const key of await listAccounts(nats)) console.log(key)
      return
    }
    if (action !== 'add' && action !== 'remove') fail(`accounts takes add, remove or list, got ${action ?? 'nothing'}`)
    if (keys.length === 0) fail(`accounts ${action} needs at least one KEY`)
    const since = values.since === undefined ? undefined : Number(values.since)
    if (since !== undefined && !isPlausiblePosition(since)) fail(`--since must be unix seconds (0, or a time from 2001 to a day ahead), got ${values.since}; milliseconds? divide by 1000`)
    if (action === 'add') await addAccounts(nats, keys, { since })
    else await removeAccounts(nats, keys)
    console.log(`${action === 'add' ? 'added' : 'removed'} ${keys.length} account(s)`)
    return
  }
  const check = positionals[0] === 'check'
  if (positionals.length > (check ? 1 : 0)) fail(`unexpected ${positionals.slice(check ? 1 : 0).join(' ')}`)
  if (!values.config) fail(`--config solvers.json is required (the createConfig input as JSON; or ${envName('config')})`)
  const maxAccounts = positiveInt('max-accounts', values['max-accounts'])
  const leaseTtlMs = positiveInt('lease-ttl-ms', values['lease-ttl-ms'])
  const partitions = positiveInt('partitions', values.partitions)
  const replicas = positiveInt('replicas', values.replicas)
  const shutdownTimeoutMs = positiveInt('shutdown-timeout-ms', values['shutdown-timeout-ms']) ?? 20_000
  const format = values['log-format'] ?? (process.stdout.isTTY ? 'pretty' : 'json')
  if (format !== 'json' && format !== 'pretty') fail(`--log-format must be json or pretty, got ${format}`)
  const level = values['log-level'] ?? 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(level)) fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${level}`)
  const headers = parseHeaders(values.header ?? [])
  const config = withHeaders(readConfig(values.config), headers)
  const stream = values.stream
  const subjectPrefix = values['subject-prefix']

  if (check) {
    for (const line of await checkRelaySetup({ config: config as never, nats, stream, subjectPrefix, replicas })) console.log(line)
    return
  }

  const instanceId = values['instance-id'] ?? `relay-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const logger = createRelayLogger({ instance: instanceId, format, level: level as LogLevel })
  const relay = await startRelay({ config: config as never, nats, maxAccounts, leaseTtlMs, partitions, replicas, instanceId, stream, subjectPrefix, logger, http: values.http })
  // The numbers are on /metrics; a line now and then shows a person at the terminal that it works.
  const report = setInterval(() => logger.info(relay.stats(), 'stats'), 10_000)
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now, without finishing the handover (leases expire after the lease TTL; checkpoints stay behind)')
      process.exit(1)
    }
    stopping = true
    clearInterval(report)
    logger.info({ signal, shutdownTimeoutMs }, 'signal received: draining')
    const deadline = setTimeout(() => {
      logger.error({ owned: relay.owned().length, shutdownTimeoutMs }, 'drain timed out: exiting with accounts not handed over (their leases expire after the lease TTL; checkpoints stay behind, so nothing is lost)')
      process.exit(1)
    }, shutdownTimeoutMs)
    relay.close().then(
      () => {
        clearTimeout(deadline)
        process.exit(0)
      },
      (error: unknown) => {
        logger.error({}, `drain failed: ${(error as Error)?.message ?? String(error)}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

/** `--header 'Name: value'` (repeatable): sent to every solver, after the config's own headers. */
function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const at = line.indexOf(':')
    const name = at > 0 ? line.slice(0, at).trim() : ''
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n]/.test(line)) fail(`--header must be 'Name: value' (an HTTP header name, a colon, the value), got ${JSON.stringify(line)}`)
    headers[name] = line.slice(at + 1).trim()
  }
  return headers
}

/** The config with `headers` added to every solver (the solver's own win). */
function withHeaders(config: unknown, headers: Record<string, string>): unknown {
  if (Object.keys(headers).length === 0 || typeof config !== 'object' || config === null) return config
  const input = config as { chains?: Record<string, { solvers?: Record<string, { headers?: Record<string, string> }> }> }
  for (const chain of Object.values(input.chains ?? {})) {
    for (const solver of Object.values(chain?.solvers ?? {})) if (solver && typeof solver === 'object') solver.headers = { ...headers, ...solver.headers }
  }
  return config
}

/** A config file is a few KiB; over this it is refused before it is read (a wrong path, a log file, a device). */
const MAX_CONFIG_BYTES = 1024 * 1024

function readConfig(path: string): unknown {
  let text: string
  try {
    const size = statSync(path).size
    if (size > MAX_CONFIG_BYTES) {
      throw new RelayError('INVALID_CONFIG', `--config ${path} is ${size} bytes; a solvers config is the createConfig input as JSON, at most ${MAX_CONFIG_BYTES} bytes. Check the path.`)
    }
    text = readFileSync(path, 'utf8')
    return JSON.parse(text)
  } catch (error) {
    if (error instanceof RelayError) throw error
    throw new RelayError('INVALID_CONFIG', `Cannot read --config ${path}: ${(error as Error).message}. It must be the createConfig input as JSON.`)
  }
}

/** NATS that does not answer or refuses: 1 (try again later, fix the server); everything else is input to fix: 2. */
const EXIT_1: ReadonlySet<string> = new Set(['NATS_UNREACHABLE', 'NATS_AUTH', 'JETSTREAM'])

main().catch((error: unknown) => {
  if (error instanceof RelayError) {
    console.error(`solver-relay: ${error.code}: ${redactText(error.message)}`)
    process.exit(EXIT_1.has(error.code) ? 1 : 2)
  }
  // Whatever failed, URLs in its text (NATS servers with passwords, solver URLs with tokens) are redacted.
  console.error(redactText(error instanceof Error ? (error.stack ?? error.message) : String(error)))
  process.exit(1)
})
