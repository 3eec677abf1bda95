import { notificationsPlugin } from '@solver-notifications/vue'
import { VueQueryPlugin } from '@tanstack/vue-query'
import { exampleClient } from 'example-shared/appConfig'
import 'example-shared/style.css'
import { createApp } from 'vue'
import App from './App.vue'

const { client, account } = exampleClient(location.search)
createApp(App, { initialAccount: account }).use(VueQueryPlugin).use(notificationsPlugin, { client }).mount('#app')
