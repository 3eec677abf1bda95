import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { METRICS, SPANS } from './instrumentNotifications.js'

// The guide's tables are the contract users build dashboards on: a name in the page and in the code
// that differ fails here.
const page = readFileSync(new URL('../../../docs/guide/observability.md', import.meta.url), 'utf8')
const firstColumn = (heading: string) => {
  const section = page.slice(page.indexOf(`## ${heading}`))
  const table = section.slice(section.indexOf('| name |') >= 0 ? section.indexOf('| name |') : section.indexOf('| span |'))
  const rows = table.split('\n').slice(2)
  const names: string[] = []
  for (const row of rows) {
    if (!row.startsWith('|')) break
    names.push(/^\| `([^`]+)`/.exec(row)![1]!)
  }
  return names
}

it('the metric table of docs/guide/observability.md names exactly the metrics the code records', () => {
  expect(firstColumn('Metrics').sort()).toEqual(Object.values(METRICS).sort())
})

it('the span table names exactly the spans the code opens, each as `{operation} {destination}`', () => {
  const spans = firstColumn('Spans')
  for (const name of spans) expect(name).toMatch(/^\w+ \{destination\}$/)
  expect(spans.map((name) => name.split(' ')[0]).sort()).toEqual(Object.values(SPANS).sort())
})
