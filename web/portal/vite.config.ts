// Builds the investor portal into web/portal/dist, which the service serves at ${BASE_PATH}/portal/.
// `base: './'` makes every asset URL relative, so one build works under any BASE_PATH.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline <script> or <style> (the Content-Security-Policy allows neither): assets always as files.
    assetsInlineLimit: 0,
  },
});
