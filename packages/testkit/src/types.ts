import type { SimulatorProtocols } from './protocols/index.js'

/**
 * A raw snake_case frame as a solver publishes it (docs/protocols.md, "Raw frame fields"); its account is `counterparty_address`.
 *
 * @example
 * await sim.publish({ quote_id: 7, counterparty_address: account, action_status: 'success' })
 */
export interface SimulatorFrame {
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
  failure_message?: string | null
  error_code?: number | null
  state_type?: string | null
  va_address?: string | null
  version?: number | null
  order_type?: number | null
  [extra: string]: unknown
}

/**
 * The wire protocol the simulator speaks.
 *
 * @example
 * const sim = await startSolverSimulator({ protocol: 'enigma' as SimulatorProtocol })
 */
export type SimulatorProtocol = keyof SimulatorProtocols

/**
 * One subscribe frame the simulator received, in arrival order.
 *
 * @example
 * expect(sim.subscriptions().map((s) => s.frame)).toEqual([{ address: [account] }])
 */
export interface SubscriptionRecord {
  connectionId: number
  /** The frame parsed as JSON (the raw text when it was not JSON). */
  frame: unknown
  /** False when the frame did not have the protocol's subscribe shape; it was then ignored. */
  valid: boolean
}

/**
 * One socket the simulator accepted.
 *
 * @example
 * expect(sim.connections().filter((c) => c.open)).toHaveLength(1)
 */
export interface ConnectionRecord {
  id: number
  path: string
  open: boolean
  /** What the socket watches now: enigma accounts of its channel patterns, rasa the current list. */
  accounts: string[]
  /** Every text frame the client sent, in order. */
  received: string[]
  closeCode?: number
}
