import { redactText } from '@solver-notifications/core/internal'
import { type DestinationStream, type Logger, pino } from 'pino'

/**
 * Where the relay logs: any logger with pino's shape (`info(fields, message)`), pino itself included.
 *
 * @example
 * const logger: RelayLogger = pino({ level: 'info' })
 */
export interface RelayLogger {
  debug(fields: object, message: string): void
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}

/** The levels `--log-level` takes, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Nothing is logged: the library default (the CLI logs). */
export const silentLogger: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** A logger over `(line) => void`, for callers of the older `log` option: the message, then the fields as JSON. */
export function lineLogger(log: (line: string) => void): RelayLogger {
  const write = (fields: object, message: string) => log(redactText(Object.keys(fields).length > 0 ? `${message} ${JSON.stringify(fields)}` : message))
  return { debug: write, info: write, warn: write, error: write }
}

/** Strings anywhere in a log object (URLs with passwords, tokens in queries) are redacted before they are written. */
function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value)
  if (depth > 4 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = redactFields(v, depth + 1)
  return out
}

/** `HH:MM:SS.mmm LEVEL instance message key=value …`: what a person reads in a terminal. */
function prettyLine(line: string): string {
  let record: Record<string, unknown>
  try {
    record = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  const { time, level, instance, msg, pid: _pid, hostname: _hostname, ...fields } = record
  const clock = typeof time === 'string' ? time.slice(11, 23) : ''
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ')
  return `${clock} ${String(level).toUpperCase().padEnd(5)} ${String(instance ?? '')} ${String(msg ?? '')}${rest ? ` ${rest}` : ''}\n`
}

/**
 * The relay's pino logger: one JSON object per line (`time`, `level`, `instance`, `msg` and fields), or
 * human lines (`format: 'pretty'`). Every string is redacted (`***` for passwords, tokens, query values).
 *
 * @example
 * const logger = createRelayLogger({ instance: 'relay-1', format: process.stdout.isTTY ? 'pretty' : 'json', level: 'info' })
 */
export function createRelayLogger(options: { instance: string; format?: 'json' | 'pretty'; level?: LogLevel; destination?: { write(line: string): void } }): Logger {
  const out = options.destination ?? process.stdout
  const destination: DestinationStream = options.format === 'pretty' ? { write: (line: string) => out.write(prettyLine(line)) } : (out as DestinationStream)
  return pino(
    {
      level: options.level ?? 'info',
      base: { instance: options.instance },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactFields(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          // The message too: a cause's text may carry a URL.
          const redacted = args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as typeof args
          method.apply(this, redacted)
        },
      },
    },
    destination,
  )
}
