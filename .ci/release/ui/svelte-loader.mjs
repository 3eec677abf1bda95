import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { compile, compileModule } from 'svelte/compiler'

export async function load(url, context, nextLoad) {
  if (url.endsWith('.svelte')) {
    const source = await readFile(fileURLToPath(url), 'utf8')
    return { format: 'module', shortCircuit: true, source: compile(source, { generate: 'server', filename: fileURLToPath(url) }).js.code }
  }
  if (/\.svelte\.js$/.test(url)) {
    const source = await readFile(fileURLToPath(url), 'utf8')
    return { format: 'module', shortCircuit: true, source: compileModule(source, { generate: 'server', filename: fileURLToPath(url) }).js.code }
  }
  return nextLoad(url, context)
}
