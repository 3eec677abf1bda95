import { startNats } from '../test/natsServer.js'
import { heapPerAccountBench } from './heapPerAccount.js'

// `pnpm --filter @solver-notifications/relay bench:heap`: heap per owned account, after forced GC.
const nats = await startNats()
try {
  await heapPerAccountBench(nats)
} finally {
  await nats.close()
}
