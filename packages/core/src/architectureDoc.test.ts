import { readFileSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// docs/architecture.md is true about the files it names: each `path.ts` it mentions (relative to a
// package's src) exists, so a rename or removal fails here until the page says it.
const root = fileURLToPath(new URL('../../../', import.meta.url))
const doc = readFileSync(`${root}docs/architecture.md`, 'utf8')

it('every source file docs/architecture.md names exists', () => {
  const named = new Set([...doc.matchAll(/`((?:[a-z]+\/)*[A-Za-z]+\.ts)`/g)].map((m) => m[1]!))
  expect(named.size).toBeGreaterThan(5)
  const files = ['packages/core/src', 'packages/relay/src'].flatMap((dir) => listFiles(`${root}${dir}`))
  // a path (`transport/classifyClose.ts`) or a bare name (`protocols.ts`) must name an existing file
  const missing = [...named].filter((path) => !files.some((file) => file.endsWith(`/${path}`)))
  expect(missing).toEqual([])
})

it('every class or function docs/architecture.md names in backticks is still in the sources it describes', () => {
  const names = new Set([...doc.matchAll(/`([A-Z][A-Za-z]+)`/g)].map((m) => m[1]!))
  const sources = ['packages/core/src', 'packages/relay/src'].map((dir) => readSources(`${root}${dir}`)).join('\n')
  const gone = [...names].filter((name) => !new RegExp(`(class|function|const|interface|type) ${name}\\b`).test(sources) && !/^[A-Z_]+$/.test(name))
  expect(gone).toEqual([])
})

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(`${dir}/${name}`).isDirectory() ? listFiles(`${dir}/${name}`) : [`${dir}/${name}`]))
}

function readSources(dir: string): string {
  let out = ''
  for (const name of readdirSync(dir)) {
    const path = `${dir}/${name}`
    if (statSync(path).isDirectory()) out += readSources(path)
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out += readFileSync(path, 'utf8')
  }
  return out
}

it('the relay numbers the docs state are its constants: changing one fails here until the prose says it', () => {
  const relaySrc = (file: string) => readFileSync(`${root}packages/relay/src/${file}`, 'utf8')
  /** A numeric constant's value, read off its declaration (`const NAME = 1_024`). */
  const constant = (file: string, pattern: RegExp) => {
    const match = pattern.exec(relaySrc(file))
    expect(match, `${pattern} in ${file}`).not.toBeNull()
    return Number(match![1]!.replace(/_/g, ''))
  }
  const readme = readFileSync(`${root}packages/relay/README.md`, 'utf8').replace(/\s+/g, ' ')
  const arch = doc.replace(/\s+/g, ' ')
  const fmt = (n: number) => n.toLocaleString('en-US')
  const partitionReads = constant('coordinator/PartitionReads.ts', /const PARTITION_READS = ([\d_]+)/)
  const concurrency = constant('coordinator/runBounded.ts', /const CONCURRENCY = ([\d_]+)/)
  const hub = constant('startRelay.ts', /export const RELAY_HUB_ACCOUNTS = ([\d_]+)/)
  const ttl = constant('startRelay.ts', /options\.leaseTtlMs \?\? ([\d_]+)/)
  const partitions = constant('partitions.ts', /export const DEFAULT_PARTITIONS = ([\d_]+)/)
  const overMean = constant('partitions.ts', /export const MAX_OVER_MEAN = ([\d.]+)/)
  const roundDivisor = constant('coordinator/LivenessRounds.ts', /this\.#interval = Math\.max\(200, Math\.floor\(deps\.leaseTtlMs \/ (\d+)\)\)/)
  const fence = /fenceMarginMs: Math\.min\(([\d_]+), Math\.floor\(leaseTtlMs \/ (\d+)\)\)/.exec(relaySrc('startRelay.ts'))
  expect(fence, 'the fence margin in startRelay.ts').not.toBeNull()
  expect(arch).toContain(`a full round (heartbeat and every renewal) every \`leaseTtlMs / ${roundDivisor}\``)
  expect(readme).toContain(`one renewal per partition every \`leaseTtlMs / ${roundDivisor}\``)
  expect(arch).toContain(`a margin (${Number(fence![1]!.replace(/_/g, '')) / 1000} s, or a fifth of the TTL)`)
  expect(Number(fence![2])).toBe(5)
  expect(arch).toContain(`${partitionReads} partitions at a time`)
  expect(arch).toContain(`${concurrency} at a time`)
  expect(arch).toContain(`at most ${hub} accounts on a hub`)
  expect(arch).toContain(`${overMean} × the mean`)
  expect(readme).toContain(`\`P\` (default ${fmt(partitions)})`)
  expect(readme).toContain(`at most ${hub} accounts on one hub socket`)
  expect(readme).toContain(`after \`leaseTtlMs\` (${ttl / 1000} s)`)
  expect(readme).toContain(`${overMean} × the mean`)
  // The operations section (When NATS misbehaves) states the relay's fence, skew and TTL bounds.
  const skew = constant('LeaseTable.ts', /export const MAX_CLOCK_SKEW_MS = ([\d_]+)/)
  const unannounced = constant('LeaseTable.ts', /export const MAX_UNANNOUNCED_TTL_MS = (\d+) \* 60_000/)
  expect(readme).toContain(`\`min(${Number(fence![1]!.replace(/_/g, '')) / 1000} s, leaseTtlMs / ${fence![2]})\``)
  expect(readme).toContain(`plus ${skew / 1000} s of clock skew`)
  expect(readme).toContain(`the longest any relay runs with, ${unannounced} minutes`)
})
