// Every published package's `engines.node` must be honoured by its whole production dependency tree:
// a dependency that needs a newer Node than the package promises fails installs with EBADENGINE
// (engine-strict) or, worse, at run time. Prints each package's verdict; exits 1 on a mismatch.
import { readFileSync, readdirSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

const minMajor = (range) => {
  const m = /(\d+)/.exec(range ?? '')
  return m ? Number(m[1]) : 0
}
let failed = false
for (const dir of readdirSync('packages')) {
  const root = resolve('packages', dir)
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  if (pkg.private) continue
  const promised = minMajor(pkg.engines?.node)
  const seen = new Set()
  const bad = []
  const visit = (fromDir, deps) => {
    const require = createRequire(join(fromDir, 'package.json'))
    for (const name of Object.keys(deps ?? {})) {
      let manifestPath
      try {
        manifestPath = realpathSync(require.resolve(`${name}/package.json`))
      } catch {
        continue // a package that hides its package.json, or an optional one that is absent
      }
      if (seen.has(manifestPath)) continue
      seen.add(manifestPath)
      const dep = JSON.parse(readFileSync(manifestPath, 'utf8'))
      if (minMajor(dep.engines?.node) > promised) bad.push(`${dep.name}@${dep.version} needs node ${dep.engines.node}`)
      visit(dirname(manifestPath), dep.dependencies)
    }
  }
  visit(root, pkg.dependencies)
  console.log(`${pkg.name} (node ${pkg.engines?.node ?? 'any'}): ${bad.length === 0 ? `ok, ${seen.size} dependencies` : bad.join('; ')}`)
  if (bad.length > 0) failed = true
}
process.exit(failed ? 1 : 0)
