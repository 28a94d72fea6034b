import { createApp } from 'vue';
import { followTheme } from './preferences/theme';
import App from './App.vue';
import { router } from './router';
import { i18n } from './i18n';
import { followLanguage } from './preferences/language';
import './styles.css';

followTheme();
followLanguage();
createApp(App).use(i18n).use(router).mount('#app');
