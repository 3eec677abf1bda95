import type { NotificationsStreamClient } from '@solver-notifications/core'
import { type PropType, defineComponent, h, onBeforeUnmount, onMounted, ref } from 'vue'
import type { DevtoolsPosition } from './DevtoolsElement.js'

/**
 * The devtools panel as a Vue component; the panel's code loads with a dynamic import when it mounts.
 *
 * @example
 * <NotificationsDevtools v-if="showDevtools" :client="client" />
 */
export const NotificationsDevtools = defineComponent({
  name: 'NotificationsDevtools',
  props: {
    client: { type: Object as PropType<NotificationsStreamClient>, required: true },
    initialIsOpen: { type: Boolean, default: false },
    position: { type: String as PropType<DevtoolsPosition>, default: undefined },
  },
  setup(props) {
    const host = ref<HTMLDivElement>()
    let unmount: (() => void) | undefined
    let gone = false
    onMounted(async () => {
      const { mountDevtools } = await import('./mountDevtools.js')
      if (!gone && host.value) unmount = mountDevtools(props.client, host.value, { initialIsOpen: props.initialIsOpen, position: props.position })
    })
    onBeforeUnmount(() => {
      gone = true
      unmount?.()
    })
    return () => h('div', { ref: host, 'data-solver-notifications-devtools': '' })
  },
})
