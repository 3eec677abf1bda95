import { faultsBench } from './faults.js'

if (!(await faultsBench())) process.exitCode = 1
process.exit()
