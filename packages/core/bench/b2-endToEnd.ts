import { startSolverSimulator } from '@solver-notifications/testkit'
import WebSocket from 'ws'
import { createConfig } from '../src/config/createConfig.js'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { compareAsync, report } from './measure.js'

const account = '0xAbC0000000000000000000000000000000000001'

/** B2: simulator → loopback socket → delivered Notification, vs a raw ws client doing JSON.parse. */
export async function runB2(): Promise<boolean> {
  let ok = true
  for (const protocol of ['enigma', 'rasa'] as const) {
    const sim = await startSolverSimulator({ protocol })
    const config = createConfig({
      defaultChainId: 1,
      chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel } } } } },
    })
    // lingerMs 0: each round opens its own socket, so only one consumer reads the stream at a time.
    const client = createNotificationsClient({ config, lingerMs: 0 })
    const frames = 50_000
    const frame = { temp_quote_id: -1, counterparty_address: account, action_status: 'success', last_seen_action: 'InstantRFQ', modify_time: 1 }
    const subscribed = async (before: number) => {
      while (sim.subscriptions().length === before) await new Promise((r) => setImmediate(r))
    }
    const measure = async (finished: Promise<void>) => {
      const start = performance.now()
      for (let i = 0; i < frames; i++) {
        const sent = sim.publish({ ...frame, quote_id: i + 1 })
        if (i % 1000 === 999) await sent
      }
      await finished
      return frames / ((performance.now() - start) / 1000)
    }

    const ours = async () => {
      let seen = 0
      let done!: () => void
      const finished = new Promise<void>((r) => (done = r))
      const before = sim.subscriptions().length
      const sub = client.notifications({ account }).subscribe(() => {
        if (++seen === frames) done()
      })
      await subscribed(before)
      const rate = await measure(finished)
      sub.unsubscribe()
      return rate
    }
    const raw = async () => {
      const ws = new WebSocket(sim.wsUrl)
      await new Promise((r) => ws.once('open', r))
      const before = sim.subscriptions().length
      ws.send(protocol === 'rasa' ? JSON.stringify({ address: [account] }) : JSON.stringify({ channel_patterns: [{ app_name: sim.channel, address: account, primary_identifier: '*', secondary_identifier: '*' }] }))
      await subscribed(before)
      let seen = 0
      let sink: unknown
      let done!: () => void
      const finished = new Promise<void>((r) => (done = r))
      ws.on('message', (data) => {
        sink = JSON.parse(data.toString())
        if (++seen === frames) done()
      })
      const rate = await measure(finished)
      void sink
      ws.close()
      return rate
    }
    const result = await compareAsync(ours, raw)
    const pass = result.ratio >= 0.8
    ok &&= pass
    report('B2', `end to end over loopback (${protocol}) vs raw ws + JSON.parse`, result, '≥ 0.80×', pass)
    client.close()
    await sim.close()
  }
  return ok
}
