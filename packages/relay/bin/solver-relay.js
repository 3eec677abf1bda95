#!/usr/bin/env node
// The installed `solver-relay` command. It exists before any build, so installing the workspace never
// warns about a missing bin target; the CLI itself is built to dist/cli.js.
import('../dist/cli.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('solver-relay is not built yet: run `pnpm --filter @solver-notifications/relay build`.')
    process.exit(1)
  }
  throw error
})
