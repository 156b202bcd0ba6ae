import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setErrorWords } from '../../kit/errors.ts';
import '../../kit/tokens.css';
import './global.css';
import { App } from './App.tsx';
import { portalErrorWords } from './lib/errors.ts';

setErrorWords(portalErrorWords);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
