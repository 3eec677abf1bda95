import { clusterBench } from './cluster.js'

if (!(await clusterBench())) process.exitCode = 1
process.exit()
