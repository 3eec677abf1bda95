import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { accounts, startClient } from '../../core/bench/p-hub.js'
import { median } from '../../core/bench/measure.js'
import { startRemoteSimulator } from '../../core/bench/remoteSimulator.js'

/**
 * OTEL: CPU per frame on a rasa hub of 10,000 accounts (frames spread over all of them, as P3). One client
 * per round in its own single-threaded process, its OpenTelemetry metrics turned on and off in turns (one
 * heap, one JIT: what differs between the turns is the metrics), against the same client uninstrumented:
 * - every metric into the OpenTelemetry JS SDK (the default set): printed with what explains it, the SDK's
 *   own cost of one `Histogram.record` with the package's three attributes, measured here too;
 * - the same without the two per-notification histograms (`notificationHistograms: false`): target ≤ 1.15×;
 * - the seam and this package's listener alone (every metric into the API's no-op meter): target ≤ 1.15×;
 * and, in a process of its own, the hand-written client: the uninstrumented one against it is P3's ratio,
 * to read beside P3's figure. Median over rounds of the best of 5 turns each.
 */
const TURNS = ['none', 'listener', 'counted', 'instrumented'] as const

async function main(): Promise<void> {
  const sim = await startRemoteSimulator('rasa')
  const rounds = Number(process.env.OTEL_ROUNDS ?? 3)
  const frames = 50_000
  const perFrame = Object.fromEntries([...TURNS, 'hand-written'].map((turn) => [turn, [] as number[]])) as Record<(typeof TURNS)[number] | 'hand-written', number[]>
  for (let r = 0; r < rounds; r++) {
    const client = await startClient(sim, 'ours', 0)
    const reps = Object.fromEntries(TURNS.map((turn) => [turn, [] as number[]])) as Record<(typeof TURNS)[number], number[]>
    for (let k = 0; k < 5; k++) {
      // Each repetition starts its turns at another one: no configuration always runs first or after the same one.
      for (let i = 0; i < TURNS.length; i++) {
        const turn = TURNS[(i + k) % TURNS.length]!
        await client.instrument(turn)
        await client.subscribe(accounts)
        reps[turn].push(await client.receive(frames, accounts))
        await client.unsubscribe(accounts)
      }
    }
    await client.stop()
    for (const turn of TURNS) perFrame[turn].push(Math.min(...reps[turn]))
    const reference = await startClient(sim, 'hand-written', 0)
    const refReps: number[] = []
    for (let k = 0; k < 5; k++) {
      await reference.subscribe(accounts)
      refReps.push(await reference.receive(frames, accounts))
      await reference.unsubscribe(accounts)
    }
    await reference.stop()
    perFrame['hand-written'].push(Math.min(...refReps))
  }
  await sim.close()
  const record = sdkRecordMicros()
  const off = median(perFrame.none)
  const [on, counted, listener, ref] = [median(perFrame.instrumented), median(perFrame.counted), median(perFrame.listener), median(perFrame['hand-written'])]
  const verdict = (ratio: number) => `${ratio.toFixed(2)}× (target ≤ 1.15×) ${ratio <= 1.15 ? 'PASS' : 'MISS'}`
  console.log(
    `OTEL CPU per frame, rasa hub of 10,000 accounts, ${frames.toLocaleString('en-US')} frames spread over all, the same client with its metrics off ${off.toFixed(2)} µs: ` +
      `every metric but the two per-notification histograms, OpenTelemetry JS SDK ${counted.toFixed(2)} µs → ${verdict(counted / off)}; ` +
      `the seam and this package's listener alone (every metric into the API's no-op meter) ${listener.toFixed(2)} µs → ${verdict(listener / off)}; ` +
      `every metric (the default) ${on.toFixed(2)} µs → ${(on / off).toFixed(2)}×, of which the SDK's two Histogram.record calls a frame makes ` +
      `(delivery.duration, notification.age; ${record.attributes.toFixed(2)} µs each with the three attributes, ${record.none.toFixed(2)} µs with none, measured in this run) ` +
      `${(2 * record.attributes).toFixed(2)} µs against ${(on - counted).toFixed(2)} µs seen: the SDK's attribute hashing, not this package's work; ` +
      `metrics off (nobody on the seam) vs hand-written ${ref.toFixed(2)} µs → ${(off / ref).toFixed(2)}× (read beside P3's figure: within noise)`,
  )
}

/** CPU µs of one SDK `Histogram.record`, with the attributes a delivered frame carries and with none (best of 5 runs). */
function sdkRecordMicros(): { attributes: number; none: number } {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
  const histogram = new MeterProvider({ readers: [reader] }).getMeter('bench').createHistogram('bench.record', { unit: 's' })
  const attributes = Object.freeze({ 'messaging.system': 'solver_notifications', 'solver_notifications.protocol': 'rasa', 'solver_notifications.source': 'live' })
  const time = (with_: object) => {
    const runs: number[] = []
    for (let k = 0; k < 5; k++) {
      const n = 200_000
      const start = process.cpuUsage()
      for (let i = 0; i < n; i++) histogram.record((i % 97) / 1000, with_)
      const used = process.cpuUsage(start)
      runs.push((used.user + used.system) / n)
    }
    return Math.min(...runs)
  }
  return { attributes: time(attributes), none: time({}) }
}

await main()
process.exit()
