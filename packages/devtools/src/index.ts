/**
 * @packageDocumentation
 * @module @solver-notifications/devtools
 */
export { DEVTOOLS_TAG, defineDevtoolsElement, type DevtoolsOptions, type DevtoolsPosition } from './DevtoolsElement.js'
export { mountDevtools } from './mountDevtools.js'
