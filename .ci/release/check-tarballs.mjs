// Checks each packed tarball's package.json as npm will see it: no workspace: protocol, no private
// package, the released version, adapters peering on the released core, and every file that main,
// module, types, svelte, react-native, bin and exports name present in the tarball.
// Usage: node check-tarballs.mjs <dir with the .tgz files> <expected version> <private names, comma separated>
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const [dir, version, privateList] = process.argv.slice(2)
const privateNames = new Set(privateList.split(','))
// A workspace-only condition (tests and docs resolve TypeScript source with it); apps never set it.
const WORKSPACE_CONDITION = '@solver-notifications/source'
const problems = []
const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'))
if (tarballs.length !== 8) problems.push(`expected 8 tarballs, found ${tarballs.length}: ${tarballs.join(', ')}`)
for (const file of tarballs) {
  const path = join(dir, file)
  const listing = new Set(execFileSync('tar', ['-tzf', path], { encoding: 'utf8' }).split('\n').filter(Boolean).map((p) => p.replace(/^package\//, '')))
  const manifest = JSON.parse(execFileSync('tar', ['-xOzf', path, 'package/package.json'], { encoding: 'utf8' }))
  const name = manifest.name
  const say = (message) => problems.push(`${name}: ${message}`)
  if (manifest.private) say('is private')
  if (manifest.version !== version) say(`version ${manifest.version}, expected ${version}`)
  const text = JSON.stringify(manifest)
  if (text.includes('workspace:')) say(`a workspace: protocol is left: ${text.match(/"[^"]+":"workspace:[^"]*"/g)}`)
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (privateNames.has(dep)) say(`${field} names the private package ${dep}`)
      if (dep.startsWith('@solver-notifications/') && field === 'peerDependencies' && range !== `^${version}`) say(`peers on ${dep} ${range}, expected ^${version}`)
      if (dep.startsWith('@solver-notifications/') && field === 'dependencies' && range !== version && range !== `^${version}`) say(`depends on ${dep} ${range}, expected ${version}`)
    }
  }
  const named = []
  const walk = (value, conditions) => {
    if (typeof value === 'string') {
      if (!conditions.includes(WORKSPACE_CONDITION)) named.push(value)
    } else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) walk(inner, [...conditions, key])
  }
  for (const field of ['main', 'module', 'types', 'svelte', 'react-native']) if (manifest[field]) named.push(manifest[field])
  walk(manifest.bin ?? {}, [])
  walk(manifest.exports ?? {}, [])
  for (const target of new Set(named)) {
    const clean = target.replace(/^\.\//, '')
    if (!listing.has(clean)) say(`names ${target}, which is not in the tarball (files?)`)
  }
  if (!listing.has('README.md')) say('has no README.md')
  if (!listing.has('LICENSE') && !listing.has('LICENSE.md')) say('has no LICENSE')
  console.log(`${name}@${manifest.version}: ${listing.size} files, ${named.length} entry points checked`)
}
if (problems.length) {
  console.error(`Tarballs that would not install or run:\n- ${problems.join('\n- ')}`)
  process.exit(1)
}
console.log('tarballs: ok')
