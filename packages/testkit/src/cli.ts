#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { startSolverSimulator } from './startSolverSimulator.js'

const usage = `solver-sim --protocol enigma|rasa [--port N] [--accounts 0x…,0x…] [--rate LIFECYCLES_PER_S] [--channel NAME]`

const { values } = parseArgs({
  options: {
    protocol: { type: 'string' },
    port: { type: 'string', default: '0' },
    accounts: { type: 'string', default: '' },
    rate: { type: 'string', default: '5' },
    channel: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})

if (values.help || (values.protocol !== 'enigma' && values.protocol !== 'rasa')) {
  console.error(values.help ? usage : `--protocol must be enigma or rasa\n${usage}`)
  process.exit(values.help ? 0 : 2)
}
const accounts = values.accounts.split(',').filter(Boolean)
const bad = accounts.find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a))
const rate = Number(values.rate)
if (bad || !(rate > 0)) {
  console.error(bad ? `not an address: ${bad}` : '--rate must be a positive number')
  process.exit(2)
}

const sim = await startSolverSimulator({ protocol: values.protocol, port: Number(values.port), channel: values.channel })
console.log(`solver-sim (${sim.protocol}) listening`)
console.log(`  wsUrl:     ${sim.wsUrl}`)
console.log(sim.protocol === 'enigma' ? `  channel:   ${sim.channel}\n  searchUrl: ${sim.searchUrl}` : `  httpUrl:   ${sim.httpUrl}`)

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
