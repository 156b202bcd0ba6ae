// The Vite configuration both apps build with: `npm run build:web` builds each app's folder into
// its own dist/, which the service serves at ${BASE_PATH}/console/ and ${BASE_PATH}/portal/.
// `base: './'` makes every asset URL relative, so one build works under any BASE_PATH.
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

export const webAppConfig = (root: string, build: UserConfig['build'] = {}) =>
  defineConfig({
    root,
    base: './',
    plugins: [react()],
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // No inline <script> or <style> (the Content-Security-Policy allows neither): assets always as files.
      assetsInlineLimit: 0,
      ...build,
    },
  });
