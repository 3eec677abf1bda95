import { build } from '/work/main/node_modules/.pnpm/esbuild@0.27.7/node_modules/esbuild/lib/main.js'
import { gzipSync } from 'node:zlib'
const r = await build({ stdin: { contents: process.argv[2], resolveDir: process.cwd() + '/src', loader: 'ts' }, bundle: true, minify: true, format: 'esm', write: false, metafile: true, external: ['rxjs', 'ws'], platform: 'browser', outdir: '/tmp/o2', conditions: ['@solver-notifications/source'] })
for (const f of r.outputFiles) console.log(f.path, f.contents.length, gzipSync(f.contents, { level: 9 }).length)
const inputs = Object.entries(r.metafile.outputs)[0][1].inputs
console.log(Object.entries(inputs).map(([k, v]) => [k.replace(/.*node_modules\//, 'nm:'), v.bytesInOutput]).sort((a, b) => b[1] - a[1]).slice(0, 30))
