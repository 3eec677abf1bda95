// ESM consumer of the packed tarballs: subscribe and search against the simulator.
import { createConfig, createNotificationsClient, isServiceError } from '@solver-notifications/core'
import { startSolverSimulator } from '@solver-notifications/testkit'
import run from './smoke-shared.cjs'
await run({ createConfig, createNotificationsClient, isServiceError, startSolverSimulator, label: 'node esm' })
