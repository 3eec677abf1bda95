export { DEVTOOLS_TAG, defineDevtoolsElement } from './DevtoolsElement.js'
export { mountDevtools } from './mountDevtools.js'
