import { rollingBench } from './rolling.js'

if (!(await rollingBench())) process.exitCode = 1
process.exit()
