import { startSolverSimulator } from '@solver-notifications/testkit'
import { createConfig } from '../src/config/createConfig.js'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { report } from './measure.js'

/** B7: 100-row pages through client.search vs raw fetch + JSON.parse of the same requests. */
export async function runB7(): Promise<boolean> {
  let ok = true
  for (const protocol of ['enigma', 'rasa'] as const) {
    const sim = await startSolverSimulator({ protocol })
    for (let i = 0; i < 40; i++) await sim.instantOpen(`0x${(i + 1).toString(16).padStart(40, '0')}`) // 120 documents, 40 states
    if (protocol === 'rasa') for (let i = 0; i < 70; i++) await sim.instantOpen(`0x${(i + 100).toString(16).padStart(40, '0')}`)
    const config = createConfig({
      defaultChainId: 1,
      chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } },
    })
    const client = createNotificationsClient({ config })
    const pages = 200
    const request =
      protocol === 'rasa'
        ? { url: `${sim.httpUrl}/position-state/0/100`, body: JSON.stringify({ address: null, quote_id: null, create_time_gte: null, modify_time_gte: null }) }
        : { url: `${sim.searchUrl}/api/v1/search`, body: JSON.stringify({ query: {}, start: 0, size: 100 }) }
    const ours = async () => {
      const page = await client.search({ size: 100 })
      if (page.rows.length !== 100) throw new Error('expected full pages')
    }
    const raw = async () => {
      const res = await fetch(request.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request.body })
      JSON.parse(await res.text())
    }
    // Request by request, alternating, so drift on a busy machine hits both sides alike.
    for (let i = 0; i < 50; i++) {
      await ours()
      await raw()
    }
    const spent = { ours: 0, raw: 0 }
    for (let i = 0; i < pages * 5; i++) {
      for (const [side, run] of i % 2 ? ([['raw', raw], ['ours', ours]] as const) : ([['ours', ours], ['raw', raw]] as const)) {
        const start = performance.now()
        await run()
        spent[side] += performance.now() - start
      }
    }
    const result = { candidate: (pages * 5) / (spent.ours / 1000), reference: (pages * 5) / (spent.raw / 1000), ratio: spent.raw / spent.ours }
    const pass = result.ratio >= 0.8
    ok &&= pass
    report('B7', `search of 100-row pages (${protocol}) vs raw fetch + JSON.parse`, result, '≥ 0.80×', pass, 'pages/s')
    client.close()
    await sim.close()
  }
  return ok
}
