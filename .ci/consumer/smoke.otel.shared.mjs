// What both otel smokes check (the module system is the caller's): a rasa stream, one lifecycle, the
// consumed counter equal to the frames the client delivered.
export async function runOtelSmoke(lib) {
  const sim = await lib.startSolverSimulator({ protocol: 'rasa' })
  const exporter = new lib.InMemoryMetricExporter(lib.AggregationTemporality.CUMULATIVE)
  const reader = new lib.PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new lib.MeterProvider({ readers: [reader] })
  const config = lib.createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const client = lib.createNotificationsClient({ config })
  const { stop } = lib.instrumentNotifications(client, { meterProvider })
  const account = '0x1111111111111111111111111111111111111111'
  const seen = []
  const sub = client.notifications({ account }).subscribe((n) => seen.push(n))
  await sim.waitForSubscribers(account)
  const { frames } = await sim.instantOpen(account)
  const deadline = Date.now() + 15_000
  while (seen.length < frames.length) {
    if (Date.now() > deadline) throw new Error(`${lib.label}: timed out waiting for the lifecycle`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await reader.forceFlush()
  let consumed = 0
  for (const rm of exporter.getMetrics()) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) if (m.descriptor.name === lib.METRICS.consumed) for (const p of m.dataPoints) consumed += p.value
  const delivered = client.stats().frames.delivered
  if (consumed !== delivered || consumed !== frames.length) throw new Error(`${lib.label}: consumed ${consumed}, stats delivered ${delivered}, published ${frames.length}`)
  stop()
  sub.unsubscribe()
  client.close()
  await meterProvider.shutdown()
  await sim.close()
  console.log(`${lib.label}: instrumentNotifications counts what the client delivered (${consumed}): ok`)
}
