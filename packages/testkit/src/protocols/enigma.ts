import { isRecord } from '../BadRequest.js'
import type { SimulatorFrame } from '../types.js'
import { type EnigmaOrder, EnigmaHistory } from './EnigmaHistory.js'
import type { SimulatorProtocolModule } from './SimulatorProtocolModule.js'

type Pattern = { address: string; primary: string | number; secondary: string | number }

/**
 * enigma in the simulator: subscribe by `channel_patterns` (patterns accumulate for the socket's
 * life; there is no unsubscribe), envelopes out (`data` optionally as a JSON string), every frame
 * stored as a document searched by equality filters at `/api/v1/search`.
 */
export const enigmaSimulator: SimulatorProtocolModule = {
  name: 'enigma',
  wsPath: '/ws/v1/subscribe',
  create({ channel, options }) {
    const history = new EnigmaHistory(channel, options.enigmaOrder as EnigmaOrder | undefined)
    const dataAsString = options.enigmaDataAsString === true
    const envelopeOf = (frame: SimulatorFrame) => ({
      app_name: channel,
      primary_identifier: Math.max(frame.quote_id ?? 0, 0),
      secondary_identifier: frame.temp_quote_id ?? null,
      address: frame.counterparty_address ?? '',
    })
    return {
      newSocket: (): Pattern[] => [],
      subscribe(socket, frame, watching) {
        if (!isRecord(frame) || !Array.isArray(frame.channel_patterns) || frame.channel_patterns.length === 0) return undefined
        const patterns: Pattern[] = []
        for (const p of frame.channel_patterns) {
          if (!isRecord(p) || typeof p.app_name !== 'string' || typeof p.address !== 'string') return undefined
          const idOk = (v: unknown) => v === '*' || typeof v === 'number'
          if (!idOk(p.primary_identifier) || !idOk(p.secondary_identifier)) return undefined
          if (p.app_name !== channel) continue // another channel: valid, but nothing of ours matches
          patterns.push({ address: p.address.toLowerCase(), primary: p.primary_identifier as string | number, secondary: p.secondary_identifier as string | number })
        }
        const next = new Set(watching)
        for (const p of patterns) {
          ;(socket as Pattern[]).push(p)
          next.add(p.address)
        }
        return next
      },
      encode: (frame) => JSON.stringify({ ...envelopeOf(frame), data: dataAsString ? JSON.stringify(frame) : frame }),
      matches(socket, frame, account) {
        const quote = frame.quote_id ?? 0
        const temp = frame.temp_quote_id ?? null
        return (socket as Pattern[]).some((p) => p.address === account && (p.primary === '*' || p.primary === quote) && (p.secondary === '*' || p.secondary === temp))
      },
      store(frame) {
        const { address, primary_identifier, secondary_identifier } = envelopeOf(frame)
        history.add(frame, { address: String(address), primary: primary_identifier, secondary: secondary_identifier })
      },
      route: (method, pathname, body) => (method === 'POST' && /^(\/notification)?\/api\/v1\/search$/.test(pathname) ? { body: history.search(body) } : undefined),
      documents: () => history.all(),
    }
  },
  lifecycle: {
    // Before anchoring, enigma sends quote_id 0.
    preChainQuoteId: () => 0,
    noValue: null,
    extraFields: { va_address: '0x9999999999999999999999999999999999999999', failure_message: null, version: 1 },
    failureFields: (message) => ({ failure_message: message ?? 'not enough allocated balance' }),
  },
  describe: (sim) => [`  wsUrl:     ${sim.wsUrl}`, `  channel:   ${sim.channel}`, `  searchUrl: ${sim.searchUrl}`],
}
