/** Realistic frames of both protocols, shared by tests, the decode example and benchmark B1. */
export const ACCOUNT_A = '0xAbC0000000000000000000000000000000000001' as const
export const ACCOUNT_B = '0x00000000000000000000000000000000000000bB' as const
export const CHANNEL = 'Arbitrum_Solver_Production'

export const enigmaData = {
  id: 'e0f1c2d3-0001',
  quote_id: 9565,
  temp_quote_id: -12,
  create_time: 1_763_700_000,
  modify_time: 1_763_700_004,
  counterparty_address: '0x5044238ef3400c00000000000000000000000000',
  filled_amount_open: '125.5',
  filled_amount_close: null,
  avg_price_open: '64123.25',
  avg_price_close: null,
  last_seen_action: 'SendQuote',
  action_status: 'success',
  failure_type: null,
  failure_message: null,
  error_code: null,
  state_type: 'report',
  va_address: '0x9999999999999999999999999999999999999999',
  version: 3,
}

export const enigmaEnvelope = {
  app_name: CHANNEL,
  primary_identifier: 9565,
  secondary_identifier: -12,
  address: ACCOUNT_A,
  data: enigmaData,
}

export const rasaPreChain = {
  id: 'r-1',
  quote_id: -42,
  temp_quote_id: -42,
  create_time: 1_763_700_010,
  modify_time: 1_763_700_010,
  counterparty_address: ACCOUNT_B.toLowerCase(),
  filled_amount_open: 0,
  filled_amount_close: 0,
  avg_price_open: 0,
  avg_price_close: 0,
  last_seen_action: 'InstantRFQ',
  action_status: 'seen',
  failure_type: null,
  error_code: 0,
  state_type: 'alert',
  order_type: 1,
}

export const rasaAnchored = {
  ...rasaPreChain,
  quote_id: 777,
  modify_time: 1_763_700_012,
  filled_amount_open: '0.75',
  avg_price_open: 3012.5,
  action_status: 'success',
  state_type: 'report',
}
