import { type Address, type Notification, type Protocol, isAddress, normalizeNotification, parseNotificationFrame } from '@solver-notifications/core'

/** One captured line: the protocol, the text frame as it came off the socket, and (rasa) the subscribed account. */
export interface CapturedFrame {
  protocol: Protocol
  frame: string
  account?: string
  chainId?: number
  solverId?: string
}

export type DecodeOutcome = { ok: true; notification: Notification } | { ok: false; line: number; reason: string }

/** Decodes one JSON line of a capture; every bad line gets a reason instead of an exception. */
export function decodeCaptureLine(text: string, line: number): DecodeOutcome {
  let captured: CapturedFrame
  try {
    captured = JSON.parse(text) as CapturedFrame
  } catch {
    return { ok: false, line, reason: 'not a JSON line' }
  }
  if (captured?.protocol !== 'enigma' && captured?.protocol !== 'rasa') return { ok: false, line, reason: 'protocol must be "enigma" or "rasa"' }
  if (typeof captured.frame !== 'string') return { ok: false, line, reason: '`frame` must be the text frame as a string' }
  const raw = parseNotificationFrame(captured.frame, captured.protocol)
  if (raw === null) return { ok: false, line, reason: 'control or malformed frame (dropped, as the live stream would)' }
  const envelopeAddress = captured.protocol === 'enigma' ? (JSON.parse(captured.frame) as { address?: unknown }).address : undefined
  const account = [captured.account, envelopeAddress, raw.counterparty_address].find(isAddress) as Address | undefined
  if (!account) return { ok: false, line, reason: 'no account: give `account` for rasa frames' }
  return {
    ok: true,
    notification: normalizeNotification(raw, {
      protocol: captured.protocol,
      chainId: captured.chainId ?? 42161,
      solverId: captured.solverId ?? captured.protocol,
      account,
    }),
  }
}
