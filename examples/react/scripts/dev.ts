import { DEMO_ACCOUNT } from 'example-shared/appConfig'
import { runExampleDev } from 'example-shared/demoSimulators'

await runExampleDev(new URL('../vite.config.ts', import.meta.url).pathname, DEMO_ACCOUNT)
