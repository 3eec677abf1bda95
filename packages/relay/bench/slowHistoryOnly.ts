import { startNats } from '../test/natsServer.js'
import { slowHistoryBench } from './slowHistory.js'

// `pnpm --filter @solver-notifications/relay bench:slow` (300 s by hand, 60 s in CI; RELAY_SLOW_SECONDS sets it).
const nats = await startNats()
try {
  process.exitCode = (await slowHistoryBench(nats)) ? 0 : 1
} finally {
  await nats.close()
}
