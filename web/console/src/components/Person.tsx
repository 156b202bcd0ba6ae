// People by name: the ids recorded as actors (API keys' ids, JWT subjects) resolved once per page
// load through GET /console/people, in batches; an id without a name is shown as it is.
import { useEffect, useState } from 'react';
import { consoleApi } from '../lib/api.ts';

const names = new Map<string, string | null>();
const waiting = new Set<string>();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

function flush() {
  timer = undefined;
  const ids = [...waiting].slice(0, 100);
  for (const id of ids) waiting.delete(id);
  if (waiting.size > 0) timer = setTimeout(flush, 0);
  consoleApi.people(ids).then(
    (found) => {
      for (const id of ids) names.set(id, null);
      for (const person of found) names.set(person.id, person.name);
      for (const listener of listeners) listener();
    },
    () => {
      for (const id of ids) names.set(id, null);
    },
  );
}

function request(id: string) {
  if (names.has(id) || waiting.has(id)) return;
  waiting.add(id);
  timer ??= setTimeout(flush, 20);
}

export function usePersonName(id: string | null | undefined): string | undefined {
  const [, setVersion] = useState(0);
  useEffect(() => {
    if (!id) return;
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    request(id);
    return () => {
      listeners.delete(listener);
    };
  }, [id]);
  return id ? (names.get(id) ?? undefined) : undefined;
}

/** An actor: their name, with the id on hover; the id when no name is known. */
export function Person({ id }: { id: string }) {
  const name = usePersonName(id);
  return (
    <span className="person" title={name ? id : undefined}>
      {name ?? id}
    </span>
  );
}
