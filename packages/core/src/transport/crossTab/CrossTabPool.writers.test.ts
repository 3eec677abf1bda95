import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'

/**
 * One writer (docs/architecture.md, "Cross-tab"): the cross-tab pool's fields, and its streams' leases,
 * change in `#dispatch` (and the effects it runs, `#run`) alone, and the reducer's state is never
 * written in place but by `Step.set` (its streams' `recent` memory by `deliver`). Read from the source:
 * a method that assigns a field or mutates a collection field anywhere else fails here.
 */

const here = dirname(fileURLToPath(import.meta.url))
const MUTATORS = new Set(['set', 'delete', 'clear', 'add', 'push', 'shift', 'pop', 'splice', 'unshift'])

/** Every write found in `file`: `where` is the enclosing class member or function, `what` the target written. */
function writes(file: string): Array<{ where: string; what: string }> {
  const source = ts.createSourceFile(file, readFileSync(join(here, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const found: Array<{ where: string; what: string }> = []
  const visit = (node: ts.Node, where: string) => {
    let inside = where
    if ((ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isGetAccessor(node)) && node.name) inside = `${where.split('.')[0]}.${node.name.getText(source)}`
    else if (ts.isConstructorDeclaration(node)) inside = `${where.split('.')[0]}.constructor`
    else if (ts.isClassDeclaration(node) && node.name) inside = node.name.text
    else if (ts.isFunctionDeclaration(node) && node.name) inside = node.name.text
    const target = (e: ts.Expression) => e.getText(source).replace(/\s+/g, ' ')
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      if (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left)) found.push({ where: inside, what: target(node.left) })
    }
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) {
      if (ts.isPropertyAccessExpression(node.operand)) found.push({ where: inside, what: target(node.operand) })
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATORS.has(node.expression.name.text)) {
      const on = node.expression.expression
      if (ts.isPropertyAccessExpression(on)) found.push({ where: inside, what: `${target(on)}.${node.expression.name.text}()` })
    }
    ts.forEachChild(node, (child) => visit(child, inside))
  }
  visit(source, '')
  return found
}

it('the cross-tab pool writes its fields in #dispatch and the effects it runs only (the constructor aside)', () => {
  const outside = writes('CrossTabPool.ts').filter(({ where, what }) => {
    if (!where.startsWith('CrossTabPool.')) return false
    if (['CrossTabPool.constructor', 'CrossTabPool.#dispatch', 'CrossTabPool.#run'].includes(where)) return false
    return /^this\./.test(what) || /\.retired$/.test(what)
  })
  expect(outside).toEqual([])
  // What a lease of this tab keeps of its stream is written by the effects alone.
  expect(writes('CrossTabPool.ts').filter(({ where, what }) => /\.retired$/.test(what) && where !== 'CrossTabPool.#run')).toEqual([])
})

it("the reducer never writes its state in place: Step.set replaces it, and a stream's `recent` memory changes in deliver alone", () => {
  const found = writes('crossTabReducer.ts').filter(({ where, what }) => {
    if (where === 'Step.constructor' || /^(this|x)\.fx\.push\(\)$/.test(what)) return false // the step's own effects list
    if (where === 'Step.set' && what === 'this.s') return false
    return !(where === 'deliver' && /^st\.recent\.(add|delete)\(\)$/.test(what))
  })
  expect(found).toEqual([])
})
