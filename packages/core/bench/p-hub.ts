import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { fmt, median } from './measure.js'
import { type RemoteSimulator, startRemoteSimulator } from './remoteSimulator.js'

const ACCOUNTS = 10_000
const accountOf = (i: number, base = 1) => `0x${(i + base).toString(16).padStart(40, '0')}`
/** The 10,000 accounts of the hub (P1-P3, and the OTEL bench of @solver-notifications/otel). */
export const accounts = Array.from({ length: ACCOUNTS }, (_, i) => accountOf(i))
const half = accounts.slice(0, ACCOUNTS / 2)
const warmup = Array.from({ length: ACCOUNTS }, (_, i) => accountOf(i, 0x100000))
const warm = '0xffffffffffffffffffffffffffffffffffffffff'
/** Which client a process runs: ours (the OTEL bench turns its OpenTelemetry metrics on and off in it) or the hand-written one. */
export type SideName = 'ours' | 'hand-written'

/** A full rasa frame (about 400 bytes), as solvers send them. */
const frame = {
  id: 'r-1',
  quote_id: 1,
  temp_quote_id: -42,
  create_time: 1_763_700_010,
  modify_time: 1_763_700_012,
  counterparty_address: warm,
  filled_amount_open: '0.75',
  filled_amount_close: 0,
  avg_price_open: '3012.5',
  avg_price_close: 0,
  last_seen_action: 'InstantRFQ',
  action_status: 'success',
  failure_type: null,
  error_code: 0,
  state_type: 'report',
  order_type: 1,
}

/** `frames` full frames from the simulator, spread over `list`. */
const publishFrames = (sim: RemoteSimulator, frames: number, list: string[]) => sim.publish([frame], { repeat: frames, spread: { accounts: list } })

const until = async (condition: () => Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5))
}

/**
 * A client of one kind in its own process (hubClientProcess.ts), warmed up and open on the hub with one
 * account; `alongside` other clients are open on the simulator already (P3 runs two at once).
 */
export async function startClient(sim: RemoteSimulator, side: SideName, lingerMs?: number, alongside = 0) {
  // --single-threaded: V8 compiles and collects on the main thread, so process CPU is this client's
  // work alone (background compiler threads would otherwise bill earlier optimizations to a window).
  const child: ChildProcess = fork(fileURLToPath(new URL('./hubClientProcess.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, '--single-threaded', '--no-memory-reducer'],
  })
  const replies: unknown[] = []
  let waiter: (() => void) | undefined
  child.on('message', (m) => {
    replies.push(m)
    waiter?.()
  })
  const next = async <T>(): Promise<T> => {
    while (replies.length === 0) await new Promise<void>((resolve) => (waiter = resolve))
    return replies.shift() as T
  }
  child.send({ op: 'open', side, url: sim.wsUrl, lingerMs, warm, warmup })
  await next()
  await sim.waitForSubscribers([warm])
  await until(async () => (await sim.openConnections()) === alongside + 1)
  return {
    /** CPU ms to subscribe `list`; resolves once the server has all of it */
    async subscribe(list: string[], waitMs = 0): Promise<number> {
      child.send({ op: 'subscribe', accounts: list, waitMs })
      const cpu = await next<number>()
      await sim.waitForSubscribers([list[0]!, list.at(-1)!])
      return cpu
    },
    /** CPU ms to unsubscribe everything (then `waitMs` more); resolves once the server watches none of it */
    async unsubscribe(list: string[], waitMs = 0): Promise<number> {
      child.send({ op: 'unsubscribe', waitMs })
      const cpu = await next<number>()
      await until(async () => (await sim.watchers(list.at(-1)!)) === 0)
      return cpu
    },
    /** CPU µs per frame to receive `frames` frames spread over `list` */
    async receive(frames: number, list: string[]): Promise<number> {
      await this.expect(frames)
      await publishFrames(sim, frames, list)
      return this.received(frames)
    },
    /** Starts counting the next `frames` frames (and the CPU they take); resolves once the client is ready */
    async expect(frames: number): Promise<void> {
      child.send({ op: 'expect', frames })
      await next()
    },
    /** CPU µs per frame of the frames expected, once the last has arrived */
    async received(frames: number): Promise<number> {
      return ((await next<number>()) * 1000) / frames
    },
    /** The OTEL bench: our client's OpenTelemetry metrics from now on (packages/otel/bench/meteredClient.ts), or none. */
    async instrument(as: 'instrumented' | 'counted' | 'listener' | 'none'): Promise<void> {
      child.send({ op: 'instrument', as })
      await next()
    },
    async stop() {
      child.send({ op: 'exit' })
      await until(async () => (await sim.openConnections()) === alongside)
    },
  }
}

/**
 * P1: CPU to subscribe 10,000 accounts to an open rasa hub, one stream each, vs the hand-written client.
 * P2: CPU to unsubscribe them with lingerMs 0 and the default, vs our own subscribe time; and 5,000 vs
 * 10,000 accounts with lingerMs 0 (linear: twice the accounts, about twice the time).
 * P3: CPU per frame with 10,000 accounts on the hub and frames spread over all of them.
 *
 * The simulator runs in a child process, and so does each client (fresh per round, warmed up, then
 * measured several times); only the client's CPU is counted, and one client's garbage never lands in
 * the other's window. Subscribing costs the same whatever the linger, so P1 repeats with lingerMs 0.
 * Each figure is the median over rounds of the best repetition within a round. P3 is measured in pairs:
 * both clients are open on the hub at once and receive the same frames at the same moment, so what the
 * shared machine does meanwhile weighs on both (measured one after the other, the hand-written client
 * alone ranged from 5.77 to 9.12 µs within one run, more than the difference measured); its ratio is
 * the median of the rounds' ratios, and which client connects first alternates between rounds.
 */
/**
 * One round of P3: both clients open on the hub together (`first` connects first), subscribed to the same
 * 10,000 accounts, then `reps` times the same frames to both at once; each client's least disturbed repetition.
 */
async function pairedFrames(sim: RemoteSimulator, first: SideName, reps: number, frames: number): Promise<{ ours: number; ref: number }> {
  const second: SideName = first === 'ours' ? 'hand-written' : 'ours'
  const a = await startClient(sim, first, 0)
  const b = await startClient(sim, second, 0, 1)
  await a.subscribe(accounts)
  await b.subscribe(accounts)
  // Both on the server before any frame: the second's subscribe returns once the first's are there.
  await until(async () => (await sim.watchers(accounts[0]!)) === 2 && (await sim.watchers(accounts.at(-1)!)) === 2)
  const cpu = { [first]: [] as number[], [second]: [] as number[] } as Record<SideName, number[]>
  for (let k = 0; k < reps; k++) {
    await Promise.all([a.expect(frames), b.expect(frames)])
    await publishFrames(sim, frames, accounts)
    const [x, y] = await Promise.all([a.received(frames), b.received(frames)])
    cpu[first].push(x)
    cpu[second].push(y)
  }
  await b.stop()
  await a.stop()
  return { ours: Math.min(...cpu.ours), ref: Math.min(...cpu['hand-written']) }
}

export async function runPHub(): Promise<boolean> {
  const sim = await startRemoteSimulator('rasa')
  const rounds = Number(process.env.P_ROUNDS ?? 3)
  // P_ONLY=3: frames only (P3), for working on the frame path; CI runs all three.
  const onlyFrames = process.env.P_ONLY === '3'
  const reps = 5
  const frames = 50_000
  const p1 = { ours: [] as number[], ref: [] as number[] }
  const p3 = { ours: [] as number[], ref: [] as number[] }
  /** P3 as it was measured before the pairs, one client after the other (printed beside it; frames received between P1's subscribe and P2's unsubscribe, as they always were) */
  const p3Apart = { ours: [] as number[], ref: [] as number[] }
  const p2 = { zero: [] as number[], zeroHalf: [] as number[], linger: [] as number[], lingerSubscribe: [] as number[] }
  for (let r = 0; r < rounds; r++) {
    const pair = await pairedFrames(sim, r % 2 === 0 ? 'ours' : 'hand-written', reps, frames)
    p3.ours.push(pair.ours)
    p3.ref.push(pair.ref)
    if (onlyFrames) continue
    for (const side of ['ours', 'hand-written'] as const) {
      const client = await startClient(sim, side, 0)
      const sub: number[] = []
      const perFrame: number[] = []
      const unsub: number[] = []
      const unsubHalf: number[] = []
      for (let k = 0; k < reps; k++) {
        sub.push(await client.subscribe(accounts))
        perFrame.push(await client.receive(frames, accounts))
        unsub.push(await client.unsubscribe(accounts))
        if (side === 'ours') {
          await client.subscribe(half)
          unsubHalf.push(await client.unsubscribe(half))
        }
      }
      await client.stop()
      // The least disturbed repetition is the client's own cost on this shared, noisy machine.
      ;(side === 'ours' ? p1.ours : p1.ref).push(Math.min(...sub))
      ;(side === 'ours' ? p3Apart.ours : p3Apart.ref).push(Math.min(...perFrame))
      if (side === 'ours') {
        p2.zero.push(Math.min(...unsub))
        p2.zeroHalf.push(Math.min(...unsubHalf))
      }
    }
    // Default linger: the release loop plus the sweep when the 2 s are over, against subscribing measured
    // over the same 2.1 s window (both then carry the process's idle work and their garbage collection).
    const lingering = await startClient(sim, 'ours')
    const linger: number[] = []
    const lingerSubscribe: number[] = []
    for (let k = 0; k < 3; k++) {
      lingerSubscribe.push(await lingering.subscribe(accounts, 2_100))
      linger.push(await lingering.unsubscribe(accounts, 2_100))
    }
    await lingering.stop()
    p2.linger.push(Math.min(...linger))
    p2.lingerSubscribe.push(Math.min(...lingerSubscribe))
  }
  const p3Ratio = median(p3.ours.map((ours, r) => ours / p3.ref[r]!))
  // The target of docs/guide/performance.md (1.05×; 1.1× stays the guard a regression must not pass).
  const p3Pass = p3Ratio <= 1.05
  const rounds3 = p3.ours.map((ours, r) => `${ours.toFixed(2)}/${p3.ref[r]!.toFixed(2)} µs = ${(ours / p3.ref[r]!).toFixed(2)}×`).join(', ')
  const p3Line = `P3 CPU per frame, rasa hub of 10,000 accounts, ${fmt(frames)} full frames spread over all of them: ours ${median(p3.ours).toFixed(2)} µs vs hand-written ${median(p3.ref).toFixed(2)} µs → ${p3Ratio.toFixed(2)}× (target ≤ 1.05×, guard 1.1×, median of ${rounds} rounds' ratios, both clients on the hub at once, each in its own single-threaded process; rounds ours/hand-written: ${rounds3}) ${p3Pass ? 'PASS' : 'MISS'}`
  if (onlyFrames) {
    console.log(p3Line)
    await sim.close()
    return p3Pass
  }
  const subscribe = median(p1.ours)
  const p1Ratio = subscribe / median(p1.ref)
  const p1Pass = p1Ratio <= 3
  console.log(
    `P1 subscribe 10,000 accounts to an open rasa hub, one stream each: ours ${subscribe.toFixed(1)} ms CPU vs hand-written (partysocket + JSON.parse + filter) ${median(p1.ref).toFixed(1)} ms → ${p1Ratio.toFixed(2)}× (target ≤ 3×) ${p1Pass ? 'PASS' : 'MISS'}`,
  )
  const zero = median(p2.zero)
  const linger = median(p2.linger)
  const lingerSubscribe = median(p2.lingerSubscribe)
  const growth = zero / median(p2.zeroHalf)
  const p2Pass = zero <= 2 * subscribe && linger <= 2 * lingerSubscribe && growth < 3
  console.log(
    `P2 unsubscribe 10,000 accounts: lingerMs 0 ${zero.toFixed(1)} ms vs subscribe ${subscribe.toFixed(1)} ms → ${(zero / subscribe).toFixed(2)}×; default linger ${linger.toFixed(1)} ms vs subscribe ${lingerSubscribe.toFixed(1)} ms, each over a 2.1 s window → ${(linger / lingerSubscribe).toFixed(2)}× (target ≤ 2×); 5,000 → 10,000 accounts: ${growth.toFixed(2)}× the time (linear ≈ 2, quadratic ≈ 4) ${p2Pass ? 'PASS' : 'MISS'}`,
  )
  const apart = p3Apart.ours.map((ours, r) => ours / p3Apart.ref[r]!)
  console.log(`${p3Line}; one client after the other in the same run: ${median(apart).toFixed(2)}× (rounds ${apart.map((x) => `${x.toFixed(2)}×`).join(', ')})`)
  if (process.env.BENCH_VERBOSE) console.log(JSON.stringify({ p1, p2, p3, p3Apart }))
  await sim.close()
  return p1Pass && p2Pass && p3Pass
}

if (import.meta.url === `file://${process.argv[1]}`) await runPHub()
