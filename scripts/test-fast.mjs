// `pnpm test:fast`: the in-process tier of the test suite, for the contributor loop (README, "Tests").
// A test file belongs to it when it needs nothing outside the process: no loopback socket or HTTP
// server (the testkit's real simulator, `ws`, `node:http`), no nats-server, no Chromium and no framework
// build. Those are the other tiers, run by `npm test` (the whole suite) and `.ci/run`. The tier is read
// from each file's own code, so a new test lands in the right one without a list to keep.
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
/** What takes a test out of the process: a server or socket on loopback, NATS, a browser, a child process. */
const OUTSIDE = /startSolverSimulator\(|WebSocketServer|createServer\(|startNats|startCluster|natsAvailable|chromium|playwright|spawn(Sync)?\(|listen\(0|127\.0\.0\.1:\d/
const LOOPBACK_LIVE = /startLive\(/
const IN_MEMORY = /memory: true/

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return []
    if (statSync(path).isDirectory()) return testFiles(path)
    return /\.test\.tsx?$/.test(name) ? [path] : []
  })
}

const fast = []
const slow = []
for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src')
  let files = []
  try {
    files = testFiles(src)
  } catch {
    continue
  }
  for (const file of files) {
    const code = readFileSync(file, 'utf8')
    const outside = OUTSIDE.test(code) || (LOOPBACK_LIVE.test(code) && !IN_MEMORY.test(code))
    ;(outside ? slow : fast).push(relative(root, file))
  }
}
console.log(`test:fast: ${fast.length} in-process test files (${slow.length} others need sockets, NATS or a browser: npm test runs them all)`)
const result = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...fast], { cwd: root, stdio: 'inherit', env: { ...process.env } })
process.exit(result.status ?? 1)
