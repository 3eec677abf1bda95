import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { connectTestClient } from '../src/testClient.js'
import { startSolverSimulator } from '../src/startSolverSimulator.js'

const account = '0xAaAa000000000000000000000000000000000001'
/** A realistic full frame (about 400 bytes on the wire, like the solvers' own). */
const frame = {
  id: 'r-1',
  quote_id: 1,
  temp_quote_id: -42,
  create_time: 1_763_700_010,
  modify_time: 1_763_700_012,
  counterparty_address: account,
  filled_amount_open: '0.75',
  filled_amount_close: '0',
  avg_price_open: '3012.5',
  avg_price_close: '0',
  last_seen_action: 'InstantRFQ',
  action_status: 'success',
  failure_type: null,
  failure_message: null,
  error_code: null,
  state_type: 'report',
  order_type: 1,
  version: 3,
}

/**
 * Simulator publish rate to one socket with 1,000 other sockets connected, measured until a client in
 * another process has received every frame (so the receiver's CPU is not the simulator's).
 */
export async function measurePublishRate(protocol: 'enigma' | 'rasa', total = 200_000): Promise<number> {
  const sim = await startSolverSimulator({ protocol })
  const subscribeFrame = (a: string) =>
    JSON.stringify(protocol === 'rasa' ? { address: [a] } : { channel_patterns: [{ app_name: sim.channel, address: a, primary_identifier: '*', secondary_identifier: '*' }] })
  const idle = await Promise.all(Array.from({ length: 1000 }, () => connectTestClient(sim.wsUrl)))
  for (const [i, c] of idle.entries()) c.ws.send(subscribeFrame(`0x${(i + 2).toString(16).padStart(40, '0')}`))
  const receiver = fork(fileURLToPath(new URL('./receiver.mjs', import.meta.url)), [sim.wsUrl, subscribeFrame(account), String(total)])
  const done = new Promise<void>((resolve) => receiver.on('message', (m: { type: string }) => m.type === 'done' && resolve()))
  await sim.waitForSubscribers(account)
  const started = performance.now()
  for (let i = 0; i < total; i++) {
    const sent = sim.publish({ ...frame, quote_id: i + 1, modify_time: 1_763_700_012 + i })
    if (i % 1000 === 999) await sent // let the socket drain instead of buffering everything
  }
  await done
  const rate = total / ((performance.now() - started) / 1000)
  receiver.send('exit')
  await Promise.all(idle.map((c) => c.close()))
  await sim.close()
  return rate
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const protocol of ['enigma', 'rasa'] as const) {
    const rate = await measurePublishRate(protocol)
    console.log(
      `testkit publish to one socket (${protocol}, full frames, 1,000 other sockets, receiver in another process): ${Math.round(rate).toLocaleString('en-US')} frames/s (target ≥ 100,000) ${rate >= 100_000 ? 'PASS' : 'MISS'}`,
    )
  }
}
