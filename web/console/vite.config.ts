// Builds the console into web/console/dist (settings shared with the portal: web/kit/vite-config.ts).
import { webAppConfig } from '../kit/vite-config.ts';

export default webAppConfig(import.meta.dirname, { chunkSizeWarningLimit: 800 });
