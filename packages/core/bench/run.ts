import { runB1 } from './b1-pipeline.js'

// Benchmarks print figures and same-run ratios; they never fail CI on a noisy machine.
const only = process.argv[2]
const suites: Record<string, () => boolean | Promise<boolean>> = { B1: runB1 }
for (const [id, run] of Object.entries(suites)) {
  if (only && only !== id) continue
  await run()
}
