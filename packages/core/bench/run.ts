import { runB1 } from './b1-pipeline.js'
import { runB2 } from './b2-endToEnd.js'
import { runB3, runB4 } from './b3b4-hub.js'
import { runB5 } from './b5-fanout.js'
import { runB7 } from './b7-search.js'
import { runDedupe } from './dedupe-memory.js'
import { runGate } from './gate.js'
import { runPHub } from './p-hub.js'
import { runPoll } from './poll.js'
import { runQuotes } from './quotes.js'
import { runResume } from './resume.js'
import { runScale } from './scale.js'
import { runVerify } from './verify.js'

// Benchmarks print figures and same-run ratios; they never fail CI on a noisy machine.
const only = process.argv[2]
const suites: Record<string, () => boolean | Promise<boolean>> = {
  B1: runB1,
  B2: runB2,
  B3: runB3,
  B4: runB4,
  B5: runB5,
  B7: runB7,
  P: runPHub,
  RESUME: runResume,
  POLL: runPoll,
  GATE: runGate,
  DEDUPE: runDedupe,
  QUOTES: runQuotes,
  SCALE: runScale,
  VERIFY: runVerify,
}
for (const [id, run] of Object.entries(suites)) {
  if (only && only !== id) continue
  await run()
}
console.log('B6 bundle size: run `pnpm size`')
