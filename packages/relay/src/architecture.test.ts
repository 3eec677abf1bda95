import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'

const src = dirname(fileURLToPath(import.meta.url))

/**
 * The relay's layers, bottom first: the building blocks (NATS, stores, leases, one account), the coordinator
 * (the one writer of partitions and accounts), and the entry points that wire them (startRelay, the CLI, the
 * package's exports). A file may import from its own layer and the ones below.
 */
const ENTRY_POINTS = new Set(['startRelay.ts', 'checkRelaySetup.ts', 'cli.ts', 'index.ts'])
const layerOf = (file: string) => (file.startsWith('coordinator/') ? 1 : ENTRY_POINTS.has(file) ? 2 : 0)

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : []
  })
}

it('every import of the relay points down its layers (building blocks, coordinator, entry points)', () => {
  const wrong: string[] = []
  for (const file of sources(src)) {
    const mine = layerOf(relative(src, file))
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const targetFile = relative(src, resolve(dirname(file), target!)).replace(/\.js$/, '.ts')
      if (layerOf(targetFile) > mine) wrong.push(`${relative(src, file)} imports ${target}`)
    }
  }
  expect(wrong).toEqual([])
})

it('no function of the relay is longer than 150 lines', () => {
  const long: string[] = []
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8')
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1
        if (lines > 150) long.push(`${relative(src, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${lines} lines)`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  expect(long).toEqual([])
})
