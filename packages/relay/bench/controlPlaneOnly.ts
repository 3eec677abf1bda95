import { controlPlaneBench } from './controlPlane.js'

// `pnpm --filter @solver-notifications/relay bench:control`: the control-plane simulation alone.
process.exitCode = controlPlaneBench() ? 0 : 1
