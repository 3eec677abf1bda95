// The scale half of the relay benchmark alone (RELAY_SCALE_TRACE=1 prints progress; RELAY_SCALE_RASA / RELAY_SCALE_ENIGMA shrink it).
import { startNats } from '../test/natsServer.js'
import { scaleBench } from './scale.js'
const nats = await startNats()
await scaleBench(nats)
await nats.close()
