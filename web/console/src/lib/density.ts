// How tightly the board and the table are drawn: compact (cards about 56 px, rows about 36 px, the
// default on a wide screen, where the operator wants many investors in view) or comfortable (the
// default on a phone, where touch targets matter more). The choice is kept in this browser.
import { useSyncExternalStore } from 'react';

export type Density = 'compact' | 'comfortable';

const KEY = 'dealflow.density';
const listeners = new Set<() => void>();

function read(): Density {
  const stored = localStorage.getItem(KEY);
  if (stored === 'compact' || stored === 'comfortable') return stored;
  return matchMedia('(min-width: 721px)').matches ? 'compact' : 'comfortable';
}

export function setDensity(density: Density) {
  localStorage.setItem(KEY, density);
  document.documentElement.dataset.density = density;
  for (const listener of listeners) listener();
}

/** The density in force; the root element carries it as data-density for the style sheets. */
export function useDensity(): Density {
  const density = useSyncExternalStore((listener) => (listeners.add(listener), () => listeners.delete(listener)), read);
  document.documentElement.dataset.density = density;
  return density;
}

/** A board card's height plus the gap below it, px: fixed so a column can be virtualised. */
export const cardSlot = (density: Density) => (density === 'compact' ? 62 : 100);
