import type { Subscription } from 'rxjs'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { createConfig } from '../src/config/createConfig.js'
import { fmt } from './measure.js'
import { startRemoteSimulator } from './remoteSimulator.js'

const accountOf = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`
const heap = () => {
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().heapUsed
}

/**
 * Scale figures, the simulator in another process:
 * - enigma, 10,000 accounts (one socket each, by design): time until every socket is open, heap per
 *   account, and retried dials (0: the dial gate keeps 10,000 dials from stampeding the server);
 * - rasa, 100,000 accounts with maxAccountsPerHub 5,000: time until the server has every address,
 *   hub sockets, heap per account.
 */
export async function runScale(): Promise<boolean> {
  let ok = true
  {
    const count = Number(process.env.SCALE_ENIGMA ?? 10_000)
    const sim = await startRemoteSimulator('enigma')
    const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel } } } } } })
    const client = createNotificationsClient({ config })
    const accounts = Array.from({ length: count }, (_, i) => accountOf(i))
    const before = heap()
    const started = performance.now()
    let open = 0
    let done!: () => void
    const allOpen = new Promise<void>((resolve) => (done = resolve))
    const subs: Subscription[] = accounts.map((account) =>
      client.status({ account }).subscribe((status) => {
        if (status === 'open' && ++open === count) done()
      }),
    )
    await allOpen
    const seconds = (performance.now() - started) / 1000
    await sim.waitForSubscribers([accounts[0]!, accounts.at(-1)!])
    const perAccount = (heap() - before) / count
    const { reconnects, sockets } = client.stats()
    const pass = reconnects === 0 && sockets === count
    ok &&= pass
    console.log(
      `SCALE enigma ${fmt(count)} accounts: all ${fmt(sockets)} sockets open in ${seconds.toFixed(1)} s, ${(perAccount / 1024).toFixed(1)} KiB heap per account, ${reconnects} retried dials (target 0) ${pass ? 'PASS' : 'MISS'}`,
    )
    for (const sub of subs) sub.unsubscribe()
    client.close()
    await sim.close()
  }
  {
    const count = Number(process.env.SCALE_RASA ?? 100_000)
    const perHub = 5_000
    const sim = await startRemoteSimulator('rasa')
    const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
    const client = createNotificationsClient({ config, maxAccountsPerHub: perHub })
    const accounts = Array.from({ length: count }, (_, i) => accountOf(i))
    const before = heap()
    const started = performance.now()
    const subs: Subscription[] = accounts.map((account) => client.notifications({ account }).subscribe())
    await sim.waitForSubscribers(accounts)
    const seconds = (performance.now() - started) / 1000
    const perAccount = (heap() - before) / count
    const { sockets, reconnects } = client.stats()
    const hubs = await sim.openConnections()
    const pass = sockets === count / perHub && hubs === sockets && reconnects === 0
    ok &&= pass
    console.log(
      `SCALE rasa ${fmt(count)} accounts, maxAccountsPerHub ${fmt(perHub)}: the server has every address after ${seconds.toFixed(1)} s on ${hubs} hub sockets, ${Math.round(perAccount)} bytes heap per account, ${reconnects} retried dials ${pass ? 'PASS' : 'MISS'}`,
    )
    for (const sub of subs) sub.unsubscribe()
    client.close()
    await sim.close()
  }
  return ok
}

if (import.meta.url === `file://${process.argv[1]}`) await runScale()
