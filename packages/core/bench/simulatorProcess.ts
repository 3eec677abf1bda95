// The testkit simulator in its own process, driven over IPC, so a benchmark measures the client and
// not the server (a benchmark of the client must not measure the simulator).
import { type HttpFault, type SimulatorFrame, type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'

type Command =
  | { id: number; op: 'start'; protocol: 'enigma' | 'rasa' }
  | { id: number; op: 'waitForSubscribers'; accounts: string[] }
  | { id: number; op: 'publish'; frames: SimulatorFrame[]; repeat?: number; spread?: { accounts: string[] } }
  | { id: number; op: 'connections' }
  | { id: number; op: 'watchers'; account: string }
  | { id: number; op: 'published' }
  | { id: number; op: 'httpFaults'; faults: HttpFault[] }
  | { id: number; op: 'close' }

let sim: SolverSimulator | undefined

// The benchmark that forked this process is gone (it finished or crashed): so is this one.
process.on('disconnect', () => process.exit(0))

process.on('message', async (command: Command) => {
  try {
    const reply = await run(command)
    process.send!({ id: command.id, ok: true, reply })
  } catch (error) {
    process.send!({ id: command.id, ok: false, error: String(error) })
  }
})

async function run(command: Command): Promise<unknown> {
  switch (command.op) {
    case 'start':
      // The benchmarks publish hundreds of thousands of frames: the inspection logs keep only the last few.
      sim = await startSolverSimulator({ protocol: command.protocol, recordLimit: 100 })
      return { wsUrl: sim.wsUrl, httpUrl: sim.httpUrl, searchUrl: sim.searchUrl, channel: sim.channel }
    case 'waitForSubscribers':
      for (const account of command.accounts) await sim!.waitForSubscribers(account, 1, { timeoutMs: 120_000 })
      return null
    case 'publish': {
      // `spread`: the i-th frame goes to the i-th account (round robin), so routing meets every account.
      const { frames, repeat = 1, spread } = command
      let pending: Promise<void> | undefined
      for (let r = 0, i = 0; r < repeat; r++) {
        for (const frame of frames) {
          const account = spread ? spread.accounts[i % spread.accounts.length]! : frame.counterparty_address
          pending = sim!.publish(spread ? { ...frame, counterparty_address: account, quote_id: i + 1, ...(frame.id ? { id: `${frame.id}-${i + 1}` } : {}) } : frame)
          // Published in one burst (one corked write per tick): the client reads at its own full speed,
          // in large chunks, instead of idling on a slower producer and paying syscalls per small read.
          ++i
        }
      }
      await pending
      return null
    }
    case 'connections':
      return sim!.connections().filter((c) => c.open).length
    case 'watchers': {
      const account = command.account.toLowerCase()
      return sim!.connections().filter((c) => c.open && c.accounts.includes(account)).length
    }
    case 'published':
      // What an independent count checks a relay against: every stored document id (enigma), and each
      // quote's latest state (rasa: quote id, state id).
      return { ids: sim!.documents().map((d) => String(d.data.id)), latest: sim!.positionStates().map((s) => [Number(s.quote_id), String(s.id)]) }
    case 'httpFaults':
      for (const fault of command.faults) sim!.injectHttpFault(fault)
      return null
    case 'close':
      await sim?.close()
      setImmediate(() => process.exit(0))
      return null
  }
}
