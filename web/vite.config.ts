// Builds the console into web/dist, which the service serves at ${BASE_PATH}/console/.
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
    chunkSizeWarningLimit: 800,
  },
});
