#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { simulatorProtocols } from './protocols/index.js'
import { startSolverSimulator } from './startSolverSimulator.js'

const names = Object.keys(simulatorProtocols)
const usage = `solver-sim: a solver notification simulator (WebSocket + HTTP history on 127.0.0.1) for demos and tests

Usage: npx solver-sim --protocol ${names.join('|')} [options]

Options:
  --protocol ${names.join('|').padEnd(12)} the wire protocol to speak (required)
  --port N               the port to listen on (default 0: a free port, printed at start)
  --accounts 0x…,0x…     accounts to publish lifecycles for, comma separated (default none: it only
                         answers subscribers and history, and says so)
  --rate N               lifecycles per second over those accounts (default 5); modify_time is the
                         current second, never ahead of the wall clock
  --channel NAME         enigma: the channel (app_name) it publishes on (default Simulator_Channel)
  --help                 this text

Ctrl-C stops it.`

// `pnpm sim -- --protocol rasa` passes the `--` through: it separates nothing here.
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'))
const { values } = parseArgs({
  args,
  options: {
    protocol: { type: 'string' },
    port: { type: 'string', default: '0' },
    accounts: { type: 'string', default: '' },
    rate: { type: 'string', default: '5' },
    channel: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})

const module = values.protocol !== undefined && Object.hasOwn(simulatorProtocols, values.protocol) ? simulatorProtocols[values.protocol] : undefined
if (values.help) {
  console.log(usage)
  process.exit(0)
}
if (!module) {
  console.error(`--protocol must be ${names.join(' or ')}\n\n${usage}`)
  process.exit(2)
}
const accounts = values.accounts.split(',').filter(Boolean)
const bad = accounts.find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a))
const rate = Number(values.rate)
if (bad || !(rate > 0)) {
  console.error(bad ? `not an address: ${bad}` : '--rate must be a positive number')
  process.exit(2)
}

const sim = await startSolverSimulator({ protocol: module.name as never, port: Number(values.port), channel: values.channel, clock: 'wall' })
console.log(`solver-sim (${sim.protocol}) listening`)
for (const line of module.describe(sim)) console.log(line)

// A steady stream of lifecycles round-robin over the accounts: open, then close or fail.
let tick = 0
const timer = accounts.length
  ? setInterval(() => {
      const account = accounts[tick++ % accounts.length]!
      const run = tick % 5 === 0 ? sim.fail(account) : sim.instantOpen(account).then((r) => sim.closeRequest(r.quoteId))
      run.catch((error: unknown) => console.error('publish failed:', error))
    }, 1000 / rate)
  : undefined
if (accounts.length) console.log(`  publishing ${rate} lifecycles/s for ${accounts.length} account(s): ${accounts.join(', ')}; Ctrl-C stops`)
else console.log('  no --accounts given: publishing nothing, waiting for subscribers and history requests (publish with --accounts 0x…); Ctrl-C stops')

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(timer)
    sim.close().then(() => {
      console.log('solver-sim stopped')
      process.exit(0)
    })
  })
}
