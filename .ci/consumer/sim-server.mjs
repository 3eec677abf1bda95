// Runs a simulator in Node for a client in another runtime (Bun, Deno): prints its URLs, publishes a
// frame once the account is subscribed, and keeps serving until killed.
import { startSolverSimulator } from '@solver-notifications/testkit'

const account = '0xAbC0000000000000000000000000000000000001'
const protocol = process.argv[2] ?? 'rasa'
const sim = await startSolverSimulator({ protocol })
console.log(JSON.stringify({ wsUrl: sim.wsUrl, httpUrl: sim.httpUrl, searchUrl: sim.searchUrl, channel: sim.channel }))
await sim.waitForSubscribers(account, 1, { timeoutMs: 60_000 })
await sim.publish({ id: 'x1', quote_id: 7, counterparty_address: account, modify_time: 1_763_700_000, action_status: 'success', last_seen_action: 'InstantRFQ' })
