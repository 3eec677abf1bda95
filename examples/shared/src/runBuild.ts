import { spawn } from 'node:child_process'

/** What {@link runBuild} returns: the exit status and everything the build printed. */
export interface BuildResult {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * Runs a build (`next build`, `vitepress build`, …) in a child process and resolves when it exits.
 * A test's `beforeAll` awaits this instead of `spawnSync`: a synchronous child blocks the test
 * worker's event loop, and a build slower than a minute (a loaded machine) made the worker miss its
 * reply from vitest (`Timeout calling "onTaskUpdate"`), failing a run whose every test passed.
 *
 * @example
 * const build = await runBuild(process.execPath, [next, 'build'], { cwd: root })
 * if (build.status !== 0) throw new Error(build.stderr)
 */
export function runBuild(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<BuildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once('error', reject)
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}
