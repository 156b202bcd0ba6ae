// How the board is laid out on a phone: one step at a time, chosen with a step switcher (the
// default: a 390 px screen holds one column), or every step's column side by side, scrolling
// sideways. The choice is kept in this browser; a wide screen always shows every column.
import { useCallback, useState } from 'react';

export type PhoneBoard = 'one-step' | 'all-steps';

const KEY = 'dealflow.board.phone';

function read(): PhoneBoard {
  try {
    return localStorage.getItem(KEY) === 'all-steps' ? 'all-steps' : 'one-step';
  } catch {
    return 'one-step';
  }
}

/** The phone board's layout and a setter that remembers it. */
export function usePhoneBoard(): [PhoneBoard, (layout: PhoneBoard) => void] {
  const [layout, setLayout] = useState(read);
  const choose = useCallback((next: PhoneBoard) => {
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // Storage refused (private mode): the choice holds for this page only.
    }
    setLayout(next);
  }, []);
  return [layout, choose];
}
