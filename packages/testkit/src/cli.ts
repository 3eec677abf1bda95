#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { simulatorProtocols } from './protocols/index.js'
import { startSolverSimulator } from './startSolverSimulator.js'

const names = Object.keys(simulatorProtocols)
const usage = `solver-sim --protocol ${names.join('|')} [--port N] [--accounts 0x…,0x…] [--rate LIFECYCLES_PER_S] [--channel NAME]`

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
if (values.help || !module) {
  console.error(values.help ? usage : `--protocol must be ${names.join(' or ')}\n${usage}`)
  process.exit(values.help ? 0 : 2)
}
const accounts = values.accounts.split(',').filter(Boolean)
const bad = accounts.find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a))
const rate = Number(values.rate)
if (bad || !(rate > 0)) {
  console.error(bad ? `not an address: ${bad}` : '--rate must be a positive number')
  process.exit(2)
}

const sim = await startSolverSimulator({ protocol: module.name as never, port: Number(values.port), channel: values.channel })
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
if (accounts.length) console.log(`  publishing ${rate} lifecycles/s for ${accounts.length} account(s); Ctrl-C stops`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(timer)
    sim.close().then(() => {
      console.log('solver-sim stopped')
      process.exit(0)
    })
  })
}
