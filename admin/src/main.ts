import { createApp } from 'vue';
import { followTheme } from './preferences/theme';
import App from './App.vue';
import { router } from './router';
import './styles.css';

followTheme();
createApp(App).use(router).mount('#app');
