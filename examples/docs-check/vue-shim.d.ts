// A guide's `.vue` component import, as Vue's tooling types it in an app.
declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent
  export default component
}
