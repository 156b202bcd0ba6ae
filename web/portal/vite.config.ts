// Builds the investor portal into web/portal/dist (settings shared with the console: web/kit/vite-config.ts).
import { webAppConfig } from '../kit/vite-config.ts';

export default webAppConfig(import.meta.dirname);
