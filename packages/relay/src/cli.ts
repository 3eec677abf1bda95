import { readFileSync, statSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { isPlausiblePosition, redactText } from '@solver-notifications/core'
import { addAccounts, listAccounts, removeAccounts } from './accountsAdmin.js'
import { RelayError } from './RelayError.js'
import { startRelay } from './startRelay.js'

const USAGE = `usage:
  solver-relay --config solvers.json [--nats nats://127.0.0.1:4222] [--max-accounts N] [--lease-ttl-ms N] [--instance-id ID] [--stream NAME] [--subject-prefix P] [--header 'Name: value']…
  solver-relay accounts add|remove|list [KEY…] [--nats URL] [--since UNIX_SECONDS]
KEY is <chainId>.<solverId>.<lowercase account>; --nats defaults to NATS_URL.`

function fail(message: string): never {
  console.error(`solver-relay: ${message}\n${USAGE}`)
  process.exit(2)
}

const positiveInt = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive integer, got ${value}`)
  return n
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parse>
  function parse() {
    return parseArgs({
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        nats: { type: 'string' },
        'max-accounts': { type: 'string' },
        'lease-ttl-ms': { type: 'string' },
        'instance-id': { type: 'string' },
        stream: { type: 'string' },
        'subject-prefix': { type: 'string' },
        since: { type: 'string' },
        header: { type: 'string', multiple: true },
        help: { type: 'boolean' },
      },
    })
  }
  try {
    parsed = parse()
  } catch (error) {
    fail((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help) {
    console.log(USAGE)
    return
  }
  const natsUrl = values.nats ?? process.env.NATS_URL
  if (!natsUrl) fail('no NATS: pass --nats nats://host:4222 or set NATS_URL')
  const nats = { servers: natsUrl.split(',') }

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
  if (positionals.length > 0) fail(`unexpected ${positionals.join(' ')}`)
  if (!values.config) fail('--config solvers.json is required (the createConfig input as JSON)')
  const maxAccounts = positiveInt('max-accounts', values['max-accounts'])
  const leaseTtlMs = positiveInt('lease-ttl-ms', values['lease-ttl-ms'])
  const headers = parseHeaders(values.header ?? [])
  const config = withHeaders(readConfig(values.config), headers)
  const relay = await startRelay({
    config: config as never,
    nats,
    maxAccounts,
    leaseTtlMs,
    instanceId: values['instance-id'],
    stream: values.stream,
    subjectPrefix: values['subject-prefix'],
    log: (line) => console.log(`${new Date().toISOString()} ${redactText(line)}`),
  })
  let last = relay.stats()
  let lastAt = Date.now()
  const report = setInterval(() => {
    const now = Date.now()
    const s = relay.stats()
    const rate = ((s.published - last.published) * 1000) / (now - lastAt)
    console.log(
      `${new Date(now).toISOString()} ${s.instanceId}: owned ${s.owned}/${s.accounts} accounts, ${s.instances} relay(s), ${rate.toFixed(0)} notifications/s, lag ${s.lagMs} ms, pending ${s.pending}, duplicates ${s.duplicates}, errors ${s.errors}`,
    )
    last = s
    lastAt = now
  }, 1_000)
  const stop = async () => {
    clearInterval(report)
    await relay.close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
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

main().catch((error: unknown) => {
  if (error instanceof RelayError) {
    console.error(`solver-relay: ${error.code}: ${redactText(error.message)}`)
    process.exit(2)
  }
  // Whatever failed, URLs in its text (NATS servers with passwords, solver URLs with tokens) are redacted.
  console.error(redactText(error instanceof Error ? (error.stack ?? error.message) : String(error)))
  process.exit(1)
})
