import { connectTestClient } from '../src/testClient.js'
import { startSolverSimulator } from '../src/startSolverSimulator.js'

/** Simulator publish rate to one socket, measured until the client has received every frame. */
export async function measurePublishRate(protocol: 'enigma' | 'rasa', total = 200_000): Promise<number> {
  const account = '0xAaAa000000000000000000000000000000000001'
  const sim = await startSolverSimulator({ protocol })
  const client = await connectTestClient(sim.wsUrl)
  client.send(
    protocol === 'rasa'
      ? { address: [account] }
      : { channel_patterns: [{ app_name: sim.channel, address: account, primary_identifier: '*', secondary_identifier: '*' }] },
  )
  while (sim.subscriptions().length === 0) await new Promise((r) => setImmediate(r))
  const frame = { quote_id: 1, temp_quote_id: -1, counterparty_address: account, action_status: 'success', last_seen_action: 'InstantRFQ', modify_time: 1 }
  const started = performance.now()
  const received = client.waitFor(total)
  for (let i = 0; i < total; i++) {
    const sent = sim.publish({ ...frame, quote_id: i + 1 })
    if (i % 1000 === 999) await sent // let the socket drain instead of buffering everything
  }
  await received
  const rate = total / ((performance.now() - started) / 1000)
  await client.close()
  await sim.close()
  return rate
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const protocol of ['enigma', 'rasa'] as const) {
    const rate = await measurePublishRate(protocol)
    console.log(`testkit publish to one socket (${protocol}): ${Math.round(rate).toLocaleString('en-US')} frames/s (target ≥ 100,000) ${rate >= 100_000 ? 'PASS' : 'MISS'}`)
  }
}
