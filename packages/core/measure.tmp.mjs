import { build } from '/work/main/node_modules/.pnpm/esbuild@0.27.7/node_modules/esbuild/lib/main.js'
import { gzipSync } from 'node:zlib'
const entry = process.argv[2]
const r = await build({ stdin: { contents: entry, resolveDir: process.cwd(), loader: 'js' }, bundle: true, minify: true, format: 'esm', write: false, metafile: true, external: ['rxjs', 'ws'], platform: 'browser', splitting: false, outdir: '/tmp/o' })
let total = 0
for (const f of r.outputFiles) { const g = gzipSync(f.contents, { level: 9 }).length; total += g; console.log(f.path, f.contents.length, g) }
const inputs = Object.entries(r.metafile.outputs)[0][1].inputs
const by = {}
for (const [k, v] of Object.entries(inputs)) { const key = k.includes('node_modules') ? k.split('node_modules/').pop().split('/').slice(0, k.includes('@') ? 2 : 1).join('/') : 'own:' + k.split('/').slice(-2).join('/'); by[key] = (by[key] || 0) + v.bytesInOutput }
console.log(Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 25))
