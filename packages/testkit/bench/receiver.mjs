// A plain ws client in its own process, so the publish benchmark measures the simulator alone.
// argv: url, subscribe frame (JSON), frames to receive. Reports over IPC.
import WebSocket from 'ws'

const [url, subscribe, total] = process.argv.slice(2)
const ws = new WebSocket(url)
let seen = 0
ws.on('open', () => {
  ws.send(subscribe)
  process.send({ type: 'subscribed' })
})
ws.on('message', () => {
  if (++seen === Number(total)) {
    process.send({ type: 'done' })
    ws.close()
  }
})
process.on('message', (m) => m === 'exit' && process.exit(0))
