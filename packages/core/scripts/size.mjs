// B6: the bundle an app gets from each entry, measured as the budgets are written: esbuild minify for
// the browser, rxjs external, gzip -9, each entry as an app uses it (with createConfig). References
// (socket.io-client, pusher-js, centrifuge) are measured the same way in the same run. Fails (exit 1)
// when an entry is over its budget. Needs `pnpm build` first (it measures dist, what npm ships).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const here = fileURLToPath(new URL('..', import.meta.url))
const core = join(here, 'dist/index.js')
const query = join(here, 'dist/query.js')
const KiB = 1024
const external = ['rxjs', 'rxjs/*', 'ws']
const use = (names, from = core) => `import { ${names} } from '${from}'; console.log(${names})`

/** Minified, gzipped bytes of one entry; `split` keeps dynamic imports in chunks of their own. */
async function measure(contents, { split = false, resolveDir = here } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'b6-'))
  try {
    const entry = join(dir, 'entry.js')
    writeFileSync(entry, contents)
    const result = await build({ entryPoints: [entry], bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, external, logLevel: 'silent', splitting: split, outdir: join(dir, 'out'), absWorkingDir: resolveDir, nodePaths: [join(here, 'node_modules')] })
    const files = result.outputFiles.map((f) => ({ name: f.path.slice(f.path.lastIndexOf('/') + 1), gz: gzipSync(f.contents, { level: 9 }).length }))
    return { gz: files.reduce((sum, f) => sum + f.gz, 0), files }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const budgets = [
  { id: 'B6a', name: 'frame helpers (parseNotificationFrame, normalizeNotification)', contents: use('parseNotificationFrame, normalizeNotification'), budget: 3 },
  { id: 'B6b', name: 'live stream only (createConfig, createStreamClient)', contents: use('createConfig, createStreamClient'), budget: 19 },
  { id: 'B6c', name: 'search only (createConfig, searchNotifications)', contents: use('createConfig, searchNotifications'), budget: 18 },
  { id: 'B6d', name: 'everything in core and core/query (the cross-tab chunk included)', contents: `export * from '${core}'; export * from '${query}'`, budget: 40 },
]
const references = [
  ['socket.io-client', "import { io } from 'socket.io-client'; console.log(io)"],
  ['pusher-js', "import Pusher from 'pusher-js'; console.log(Pusher)"],
  ['centrifuge', "import { Centrifuge } from 'centrifuge'; console.log(Centrifuge)"],
]

const fmt = (bytes) => `${(bytes / KiB).toFixed(2)} KiB`
let over = 0
console.log('B6 bundle sizes (esbuild minify, browser, rxjs external, gzip -9)')
for (const b of budgets) {
  const { gz } = await measure(b.contents)
  const ok = gz <= b.budget * KiB
  if (!ok) over++
  console.log(`${b.id} ${b.name}: ${fmt(gz)} of ${b.budget} KiB ${ok ? 'PASS' : 'OVER'}`)
}
// What loads at start for an app that imports everything and leaves crossTab off: the cross-tab code is a chunk of its own.
const split = await measure(`export * from '${core}'; export * from '${query}'`, { split: true })
const crossTab = split.files.filter((f) => f.name.startsWith('CrossTabPool'))
console.log(`    everything without the cross-tab chunk (loaded only when crossTab is on): ${fmt(split.gz - crossTab.reduce((s, f) => s + f.gz, 0))}; the chunk: ${fmt(crossTab.reduce((s, f) => s + f.gz, 0))}`)
for (const [name, contents] of references) {
  try {
    const { gz } = await measure(contents)
    console.log(`    reference ${name}: ${fmt(gz)}`)
  } catch (error) {
    console.log(`    reference ${name}: not measured (${error.message.split('\n')[0]})`)
  }
}
if (over > 0) {
  console.error(`${over} entr${over === 1 ? 'y is' : 'ies are'} over budget`)
  process.exit(1)
}
