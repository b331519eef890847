// Client-side routing by path under /console (the service serves the same page for each of them).
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  listeners.forEach((listener) => listener());
}

/** The current path; re-renders on navigate() and on the browser's back/forward. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A same-origin link that routes without reloading the page (modifier clicks keep the browser's behaviour). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}

/** Each page names itself in the tab and for screen readers. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Switchyard`;
  }, [title]);
}
