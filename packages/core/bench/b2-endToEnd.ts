import WebSocket from 'ws'
import { type NotificationsClient, createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { createConfig } from '../src/config/createConfig.js'
import { compareAsync, report } from './measure.js'
import { startRemoteSimulator } from './remoteSimulator.js'

const account = '0xAbC0000000000000000000000000000000000001'

/**
 * B2: simulator → loopback socket → delivered Notification, vs a raw ws client doing JSON.parse on the
 * same stream. The simulator runs in a child process, so the figure is the client's throughput, not
 * the simulator's.
 */
export async function runB2(): Promise<boolean> {
  let ok = true
  for (const protocol of ['enigma', 'rasa'] as const) {
    const sim = await startRemoteSimulator(protocol)
    const config = createConfig({
      defaultChainId: 1,
      chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel } } } } },
    })
    // lingerMs 0: each round opens its own socket, so only one consumer reads the stream at a time.
    const client: NotificationsClient = createNotificationsClient({ config, lingerMs: 0 })
    const frames = 50_000
    const frame = { temp_quote_id: -1, counterparty_address: account, action_status: 'success', last_seen_action: 'InstantRFQ', modify_time: 1 }
    const closed = async () => {
      while ((await sim.openConnections()) > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const measure = async (finished: Promise<void>) => {
      const start = performance.now()
      await Promise.all([sim.publish([frame], { repeat: frames, spread: { accounts: [account] } }), finished])
      return frames / ((performance.now() - start) / 1000)
    }

    const ours = async () => {
      let seen = 0
      let done!: () => void
      const finished = new Promise<void>((r) => (done = r))
      const sub = client.notifications({ account }).subscribe(() => {
        if (++seen === frames) done()
      })
      await sim.waitForSubscribers([account])
      const rate = await measure(finished)
      sub.unsubscribe()
      await closed()
      return rate
    }
    const raw = async () => {
      const ws = new WebSocket(sim.wsUrl)
      await new Promise((r) => ws.once('open', r))
      ws.send(protocol === 'rasa' ? JSON.stringify({ address: [account] }) : JSON.stringify({ channel_patterns: [{ app_name: sim.channel, address: account, primary_identifier: '*', secondary_identifier: '*' }] }))
      await sim.waitForSubscribers([account])
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
      await closed()
      return rate
    }
    const result = await compareAsync(ours, raw)
    const pass = result.ratio >= 0.8
    ok &&= pass
    report('B2', `end to end over loopback (${protocol}, simulator in another process) vs raw ws + JSON.parse`, result, '≥ 0.80×', pass)
    client.close()
    await sim.close()
  }
  return ok
}
