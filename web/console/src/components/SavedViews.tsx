// A deal's saved views: filters and sort under a name, kept in this browser (localStorage), picked
// from a list to apply, saved from the current URL's query, or forgotten.
import { useState } from 'react';

interface SavedView {
  name: string;
  query: string;
}
const viewsKey = (dealId: string) => `dealflow.views.${dealId}`;
function readViews(dealId: string): SavedView[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(viewsKey(dealId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is SavedView => typeof v?.name === 'string' && typeof v?.query === 'string') : [];
  } catch {
    return [];
  }
}

/** A deal's saved views (filters and sort under a name), kept in this browser: pick one to apply it, or save the current one. */
export function SavedViews({ dealId }: { dealId: string }) {
  const [views, setViews] = useState(() => readViews(dealId));
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const query = location.hash.split('?')[1] ?? '';
  const current = views.find((v) => v.query === query)?.name ?? '';
  const store = (next: SavedView[]) => {
    localStorage.setItem(viewsKey(dealId), JSON.stringify(next));
    setViews(next);
  };
  const apply = (chosen: string) => {
    const saved = views.find((v) => v.name === chosen);
    if (!saved) return;
    const path = location.hash.split('?')[0] || '#/';
    // A hash change: the pages read their filters from the URL again.
    location.hash = `${path.slice(1)}${saved.query ? `?${saved.query}` : ''}`;
  };
  const save = () => {
    const trimmed = name.trim();
    if (!trimmed) return;
    store([...views.filter((v) => v.name !== trimmed), { name: trimmed, query }].sort((a, b) => a.name.localeCompare(b.name)));
    setName('');
    setNaming(false);
  };
  return (
    <span className="saved-views">
      {views.length > 0 && (
        <label className="inline-field">
          <span>View</span>
          <select aria-label="Saved views" value={current} onChange={(e) => apply(e.target.value)}>
            <option value="">{current ? 'Saved views' : 'Unsaved view'}</option>
            {views.map((v) => (
              <option key={v.name} value={v.name}>
                {v.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {current && (
        <button type="button" className="link-button" onClick={() => store(views.filter((v) => v.name !== current))}>
          Forget “{current}”
        </button>
      )}
      {naming ? (
        <form
          className="saved-views-form"
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <label>
            <span className="visually-hidden">Name of the view</span>
            <input
              // biome-ignore lint/a11y/noAutofocus: the field appears because the person just chose to name a view
              autoFocus
              placeholder="Name of the view"
              value={name}
              onChange={(e) => setName(e.target.value)}
              onKeyDown={(e) => e.key === 'Escape' && setNaming(false)}
            />
          </label>
          <button type="submit" className="button" disabled={!name.trim()}>
            Save
          </button>
        </form>
      ) : (
        !current && (
          <button type="button" className="link-button" onClick={() => setNaming(true)}>
            Save this view
          </button>
        )
      )}
    </span>
  );
}
