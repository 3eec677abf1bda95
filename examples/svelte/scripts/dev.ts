import { DEMO_ACCOUNT } from 'example-shared/appConfig'
import { publishSteadily, startDemoSimulators } from 'example-shared/demoSimulators'
import { createServer } from 'vite'

// Simulators on the ports the app defaults to, a steady stream of lifecycles, then Vite.
const sims = await startDemoSimulators({ rasa: 8787, enigma: 8788 })
const stop = publishSteadily([sims.rasa, sims.enigma], DEMO_ACCOUNT)
const server = await createServer({ configFile: new URL('../vite.config.ts', import.meta.url).pathname })
await server.listen()
server.printUrls()
process.once('SIGINT', async () => {
  stop()
  await server.close()
  await sims.close()
  process.exit(0)
})
