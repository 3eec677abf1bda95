// What every release smoke uses to wait and to fail (copied next to each smoke; no dependencies).

/** Resolves when `test()` (sync or async) holds, checking every 20 ms; fails after `ms` naming what it waited for. */
export async function until(what, test, ms = 15_000) {
  const started = Date.now()
  while (!(await test())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Ends the smoke with a message naming what failed. */
export function check(condition, message) {
  if (!condition) {
    console.error(`FAILED: ${message}`)
    process.exit(1)
  }
}
