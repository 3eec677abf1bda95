// CommonJS consumer of the packed tarballs: subscribe and search against the simulator.
const { createConfig, createNotificationsClient, isServiceError } = require('@solver-notifications/core')
const { startSolverSimulator } = require('@solver-notifications/testkit')
require('./smoke-shared.cjs')({ createConfig, createNotificationsClient, isServiceError, startSolverSimulator, label: 'node cjs' })
