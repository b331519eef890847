// The agents and flows the signed-in person can see, by id: names for the sessions list and its filter.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { operations } from '../http/client/schema';

type AutomationPage = operations['listAutomations']['responses'][200]['content']['application/json'];
export type Automation = AutomationPage['automations'][number];

/** Every page of GET /authoring/automations (a workspace has tens, not thousands); empty until loaded or on failure. */
export function useAutomations(): Map<string, Automation> {
  const [byId, setById] = useState(new Map<string, Automation>());
  useEffect(() => {
    let live = true;
    (async () => {
      const all = new Map<string, Automation>();
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
        const page: AutomationPage = await api('GET', `/authoring/automations${query}`);
        page.automations.forEach((automation) => all.set(automation.id, automation));
        cursor = page.nextCursor;
      } while (cursor && live);
      if (live) setById(all);
    })().catch(() => undefined); // Names are a convenience: the list still works with ids.
    return () => {
      live = false;
    };
  }, []);
  return byId;
}
