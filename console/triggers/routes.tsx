// Which trigger screen a /console/triggers… path names (null: not a trigger path).
import './triggers.css';
import type { JSX } from 'preact';
import { ApiKeysPage } from './api-keys-page';
import { TriggerPage } from './detail-page';
import { TriggersPage } from './list-page';
import { NewTriggerPage } from './new-page';

export function triggerScreen(path: string): JSX.Element | null {
  if (path === '/console/triggers' || path === '/console/triggers/') return <TriggersPage />;
  if (path === '/console/triggers/new') return <NewTriggerPage />;
  if (path === '/console/triggers/api-keys') return <ApiKeysPage />;
  const id = /^\/console\/triggers\/([^/]+)$/.exec(path)?.[1];
  return id ? <TriggerPage key={id} triggerId={decodeURIComponent(id)} /> : null;
}
