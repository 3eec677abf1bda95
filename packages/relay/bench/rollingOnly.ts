import { rollingBench } from './rolling.js'

// `pnpm bench:rolling [enigma|rasa]`: both by default.
const only = process.argv[2] as 'enigma' | 'rasa' | undefined
for (const protocol of only ? [only] : (['enigma', 'rasa'] as const)) if (!(await rollingBench(protocol))) process.exitCode = 1
process.exit()
