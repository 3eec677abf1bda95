/**
 * Type rules for the known snake_case fields. A known field of the wrong type makes a frame
 * malformed (SPEC §3.3); unknown fields are never checked. Hand-written instead of zod because this
 * runs once per inbound frame and B1 measured schema validation at a fraction of JSON.parse speed.
 */
const STRING = 1
const NUMBER = 2
const DECIMAL = 3 // string or number

const FIELD_RULES: ReadonlyArray<readonly [string, number]> = [
  ['id', STRING],
  ['quote_id', NUMBER],
  ['temp_quote_id', NUMBER],
  ['create_time', NUMBER],
  ['modify_time', NUMBER],
  ['counterparty_address', STRING],
  ['filled_amount_open', DECIMAL],
  ['filled_amount_close', DECIMAL],
  ['avg_price_open', DECIMAL],
  ['avg_price_close', DECIMAL],
  ['last_seen_action', STRING],
  ['action_status', STRING],
  ['failure_type', STRING],
  ['error_code', NUMBER],
  ['state_type', STRING],
  ['va_address', STRING],
  ['failure_message', STRING],
  ['version', NUMBER],
  ['order_type', NUMBER],
]

/** Returns the name of the first known field with a wrong type, or undefined when the frame is well-typed. */
export function findInvalidField(frame: Record<string, unknown>): string | undefined {
  for (let i = 0; i < FIELD_RULES.length; i++) {
    const rule = FIELD_RULES[i]!
    const value = frame[rule[0]]
    if (value === undefined || value === null) continue
    const t = typeof value
    const kind = rule[1]
    if (kind === STRING ? t !== 'string' : kind === NUMBER ? t !== 'number' : t !== 'string' && t !== 'number') {
      return rule[0]
    }
    if (t === 'number' && !Number.isFinite(value as number)) return rule[0]
  }
  return undefined
}
