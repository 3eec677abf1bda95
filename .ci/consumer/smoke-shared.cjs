// One scenario per protocol: a live notification arrives, and a search returns it (the CommonJS build
// once failed every search with "import_ky.default.post is not a function").
module.exports = async function run({ createConfig, createNotificationsClient, startSolverSimulator, label }) {
  const account = '0xAbC0000000000000000000000000000000000001'
  for (const protocol of ['enigma', 'rasa']) {
    const sim = await startSolverSimulator({ protocol })
    const notifications = protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl }
    const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications } } } } })
    const client = createNotificationsClient({ config })
    const got = new Promise((resolve) => {
      const sub = client.notifications({ account }).subscribe((n) => {
        sub.unsubscribe()
        resolve(n)
      })
    })
    await sim.waitForSubscribers(account)
    await sim.publish({ id: 'x1', quote_id: 7, counterparty_address: account, modify_time: 1_763_700_000, action_status: 'success', last_seen_action: 'InstantRFQ' })
    const n = await got
    const page = await client.search({ account })
    if (n.quoteId !== 7 || page.rows.length !== 1) throw new Error(`${label} ${protocol}: unexpected ${n.quoteId} / ${page.rows.length} rows`)
    client.close()
    await sim.close()
    console.log(`${label} ${protocol}: subscribe and search ok`)
  }
}
