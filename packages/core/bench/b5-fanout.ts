import { startSolverSimulator } from '@solver-notifications/testkit'
import { createConfig } from '../src/config/createConfig.js'
import { rasaProtocol as rasaDriver } from '../src/protocol/rasa/rasaProtocol.js'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'

/** B5: 1,000 subscribers of one account over a real socket: sockets opened and parses per frame. */
export async function runB5(): Promise<boolean> {
  const account = '0xAbC0000000000000000000000000000000000001'
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const client = createNotificationsClient({ config })
  let parses = 0
  const decode = rasaDriver.decode
  rasaDriver.decode = (text, max) => {
    parses++
    return decode(text, max)
  }
  const frames = 100
  let deliveries = 0
  let done!: () => void
  const finished = new Promise<void>((r) => (done = r))
  const subs = Array.from({ length: 1000 }, () =>
    client.notifications({ account }).subscribe(() => {
      if (++deliveries === frames * 1000) done()
    }),
  )
  while (sim.subscriptions().length === 0) await new Promise((r) => setImmediate(r))
  for (let i = 0; i < frames; i++) await sim.publish({ quote_id: i + 1, counterparty_address: account })
  await finished
  rasaDriver.decode = decode
  const sockets = sim.connections().length
  const perFrame = parses / frames
  const pass = sockets === 1 && perFrame === 1
  console.log(`B5 1,000 subscribers of one account: ${sockets} socket(s), ${perFrame} parse(s) per frame, ${deliveries} deliveries (target 1 and 1) ${pass ? 'PASS' : 'MISS'}`)
  for (const s of subs) s.unsubscribe()
  client.close()
  await sim.close()
  return pass
}
