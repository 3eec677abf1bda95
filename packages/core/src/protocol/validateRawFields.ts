/**
 * Type rules for the known snake_case fields (docs/protocols.md, "Raw frame fields"). A known field of the frame's own protocol
 * with the wrong type makes a frame malformed; unknown fields, and the other protocol's fields, are
 * never checked. Hand-written instead of zod because this runs once per inbound frame and the frame-pipeline benchmark measured
 * schema validation at a fraction of JSON.parse speed. Each field is read by its literal name (not
 * from a table) so V8 caches every lookup per frame shape.
 */
export const str = (v: unknown) => v == null || typeof v === 'string'
export const num = (v: unknown) => v == null || (typeof v === 'number' && Number.isFinite(v))
/** a decimal: a string, or a finite number */
const dec = (v: unknown) => typeof v === 'string' || num(v)

/** Returns the name of the first base field with a wrong type, or undefined when they are well-typed. */
export function findInvalidBaseField(f: Record<string, unknown>): string | undefined {
  if (!str(f.id)) return 'id'
  if (!num(f.quote_id)) return 'quote_id'
  if (!num(f.temp_quote_id)) return 'temp_quote_id'
  if (!num(f.create_time)) return 'create_time'
  if (!num(f.modify_time)) return 'modify_time'
  if (!str(f.counterparty_address)) return 'counterparty_address'
  if (!dec(f.filled_amount_open)) return 'filled_amount_open'
  if (!dec(f.filled_amount_close)) return 'filled_amount_close'
  if (!dec(f.avg_price_open)) return 'avg_price_open'
  if (!dec(f.avg_price_close)) return 'avg_price_close'
  if (!str(f.last_seen_action)) return 'last_seen_action'
  if (!str(f.action_status)) return 'action_status'
  if (!str(f.failure_type)) return 'failure_type'
  if (!num(f.error_code)) return 'error_code'
  if (!str(f.state_type)) return 'state_type'
  return undefined
}
