// Docs that cannot rot: every ```ts / ```tsx block of the docs and the READMEs is type-checked against
// the packages' sources, and every relative link (and its #anchor) must point at something that exists.
// Run from the repository: `pnpm docs:check`.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '../..')
const generated = join(here, 'generated')

/** The markdown a reader meets: the root README, docs/, and every package's and example's README. */
function markdownFiles() {
  const files = [join(root, 'README.md')]
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.md')) files.push(path)
    }
  }
  walk(join(root, 'docs'))
  for (const group of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, group))) {
      const readme = join(root, group, name, 'README.md')
      if (existsSync(readme)) files.push(readme)
    }
  }
  return files
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

function anchorsOf(file) {
  const anchors = new Set()
  let fenced = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^#{1,6} (.+)$/.exec(line)
    if (m) anchors.add(slug(m[1]))
  }
  return anchors
}

const problems = []
const blocks = []
for (const file of markdownFiles()) {
  const text = readFileSync(file, 'utf8')
  const shown = relative(root, file)
  // Links outside code blocks.
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?:|mailto:)/.test(target)) continue
    const [path, anchor] = target.split('#')
    const to = path ? resolve(dirname(file), path) : file
    if (!existsSync(to)) {
      problems.push(`${shown}: link to ${target}: ${relative(root, to)} does not exist`)
      continue
    }
    if (anchor && to.endsWith('.md') && !anchorsOf(to).has(anchor)) problems.push(`${shown}: link to ${target}: no heading #${anchor} in ${relative(root, to)}`)
  }
  // TypeScript blocks.
  let n = 0
  for (const [, lang, code] of text.matchAll(/^```(ts|tsx|typescript)\n([\s\S]*?)^```/gm)) {
    n++
    const line = text.slice(0, text.indexOf(code)).split('\n').length
    blocks.push({ file: shown, line, lang: lang === 'tsx' ? 'tsx' : 'ts', code, n })
  }
}

rmSync(generated, { recursive: true, force: true })
mkdirSync(generated, { recursive: true })
const where = new Map()
for (const b of blocks) {
  const name = `${b.file.replace(/[^a-zA-Z0-9]+/g, '_')}_${b.n}.${b.lang}`
  where.set(name, b)
  // Each block is a module of its own; names a fragment uses without declaring come from globals.d.ts.
  writeFileSync(join(generated, name), `${b.code}\nexport {}\n`)
}
try {
  execFileSync(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')], { cwd: here, encoding: 'utf8', stdio: 'pipe' })
} catch (error) {
  for (const line of String(error.stdout).split('\n')) {
    const m = /^generated\/([^()]+)\((\d+),(\d+)\): (.*)$/.exec(line)
    if (!m) {
      if (line.trim()) problems.push(line)
      continue
    }
    const b = where.get(m[1])
    problems.push(`${b.file}:${b.line + Number(m[2]) - 1}: ${m[4]}`)
  }
}
console.log(`docs: ${blocks.length} TypeScript blocks type-checked, links checked in ${markdownFiles().length} files`)
if (problems.length > 0) {
  console.error(problems.join('\n'))
  console.error(`docs: ${problems.length} problem(s)`)
  process.exit(1)
}
console.log('docs: ok')
