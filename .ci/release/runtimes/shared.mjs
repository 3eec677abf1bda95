// What the runtime smokes share: a rasa simulator from the testkit tarball, on loopback.
import { build } from 'esbuild'
import { startSolverSimulator } from '@solver-notifications/testkit'

export const account = '0xAbC0000000000000000000000000000000000001'
export const other = '0xAbC0000000000000000000000000000000000002'

/** Bundles an entry with core from its tarball as that runtime's bundler would (its export conditions). */
export async function bundle(entry, conditions, format) {
  const out = await build({ entryPoints: [new URL(entry, import.meta.url).pathname], bundle: true, format, platform: 'browser', conditions, write: false, logLevel: 'error' })
  return out.outputFiles[0].text
}

export const startSim = () => startSolverSimulator({ protocol: 'rasa' })

export { check, until } from './checks.mjs'
