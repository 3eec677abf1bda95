// Jest (CommonJS by default) loads core and searches.
const { createConfig, createNotificationsClient, isServiceError } = require('@solver-notifications/core')
const { startSolverSimulator } = require('@solver-notifications/testkit')
const run = require('./smoke-shared.cjs')

test('core subscribes and searches under Jest', async () => {
  await run({ createConfig, createNotificationsClient, isServiceError, startSolverSimulator, label: 'jest' })
}, 30_000)
