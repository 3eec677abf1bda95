import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { formatNotification } from '@solver-notifications/core'
import { decodeCaptureLine } from './decodeCapture.js'

// Usage: main.ts <file.jsonl | ->   ("-" reads frames from standard input)
const source = process.argv[2] ?? '-'
const input = source === '-' ? process.stdin : createReadStream(source, 'utf8')
let line = 0
let decoded = 0
let dropped = 0
for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
  line++
  if (text.trim() === '') continue
  const outcome = decodeCaptureLine(text, line)
  if (outcome.ok) {
    decoded++
    console.log(formatNotification(outcome.notification))
  } else {
    dropped++
    console.log(`line ${outcome.line}: dropped: ${outcome.reason}`)
  }
}
console.log(`\n${decoded} notifications decoded, ${dropped} lines dropped`)
