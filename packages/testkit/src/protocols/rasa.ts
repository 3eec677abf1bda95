import { isRecord } from '../BadRequest.js'
import { RasaHistory } from './RasaHistory.js'
import type { SimulatorProtocolModule } from './SimulatorProtocolModule.js'

/**
 * rasa in the simulator: a hub subscribed by the full `{ address: [...] }` list (each frame replaces
 * the list), bare frames out to every socket watching the account, the latest state per quote stored
 * and searched at `/position-state/{start}/{size}`.
 */
export const rasaSimulator: SimulatorProtocolModule = {
  name: 'rasa',
  wsPath: '/ws/position-state-ws3',
  create() {
    const history = new RasaHistory()
    return {
      newSocket: () => undefined,
      subscribe(_socket, frame) {
        if (!isRecord(frame) || !Array.isArray(frame.address) || !frame.address.every((a) => typeof a === 'string')) return undefined
        return new Set((frame.address as string[]).map((a) => a.toLowerCase()))
      },
      encode: (frame) => JSON.stringify(frame),
      matches: () => true,
      store: (frame) => history.add(frame),
      route(method, pathname, body) {
        const route = /^\/position-state\/([^/]+)\/([^/]+)$/.exec(pathname)
        return method === 'POST' && route ? { body: history.search(route[1]!, route[2]!, body) } : undefined
      },
      positionStates: () => history.all(),
    }
  },
  lifecycle: {
    // Before anchoring, rasa sends the negative temporary id as quote_id; 0 means "no value".
    preChainQuoteId: (temp) => temp,
    noValue: 0,
    extraFields: { order_type: 1 },
    failureFields: () => ({}),
  },
  describe: (sim) => [`  wsUrl:     ${sim.wsUrl}`, `  httpUrl:   ${sim.httpUrl}`],
}
