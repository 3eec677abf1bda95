/**
 * A raw position-state frame as a solver sends it (snake_case, every field optional on the wire).
 * Unknown extra fields are kept.
 *
 * @example
 * const raw: RawPositionNotification = { quote_id: 9565, action_status: 'success', last_seen_action: 'SendQuote' }
 */
export interface RawPositionNotification {
  id?: string | null
  quote_id?: number | null
  temp_quote_id?: number | null
  create_time?: number | null
  modify_time?: number | null
  counterparty_address?: string | null
  filled_amount_open?: string | number | null
  filled_amount_close?: string | number | null
  avg_price_open?: string | number | null
  avg_price_close?: string | number | null
  last_seen_action?: string | null
  action_status?: string | null
  failure_type?: string | null
  error_code?: number | null
  state_type?: 'report' | 'alert' | (string & {}) | null
  [extra: string]: unknown
}
