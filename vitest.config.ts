import { defineConfig } from 'vitest/config'
import projects from './vitest.workspace.js'

// vitest.workspace.ts stays the one list of test projects; naming it here (test.projects) is what
// vitest 3.2 reads without its workspace-file deprecation warning.
export default defineConfig({ test: { projects } })
