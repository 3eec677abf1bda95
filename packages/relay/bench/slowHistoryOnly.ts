import { startNats } from '../test/natsServer.js'
import { slowHistoryBench } from './slowHistory.js'

// `pnpm --filter @solver-notifications/relay bench:slow` (RELAY_SLOW_SECONDS=300 for the full figure).
const nats = await startNats()
try {
  process.exitCode = (await slowHistoryBench(nats)) ? 0 : 1
} finally {
  await nats.close()
}
