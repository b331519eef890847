// /console/triggers: every trigger of the person's domains (type, state, schedule, subscribers), paged with the API's cursor.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';
import { TYPE_LABEL, type ScheduleConfig, type Trigger, type TriggerPage } from './types';
import { domainName, useTriggerChoices } from './use-domains';

const page = (type: string, cursor?: string) => {
  const params = new URLSearchParams({ limit: '50' });
  if (type) params.set('type', type);
  if (cursor) params.set('cursor', cursor);
  return api<TriggerPage>('GET', `/triggers?${params}`);
};

export function TriggersPage() {
  useTitle('Triggers');
  const [type, setType] = useState('');
  const [triggers, setTriggers] = useState<Trigger[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { choices } = useTriggerChoices();

  useEffect(() => {
    let live = true;
    setTriggers(null);
    page(type)
      .then((first) => {
        if (!live) return;
        setTriggers(first.triggers);
        setNextCursor(first.nextCursor);
      })
      .catch((failure: ApiError) => live && setError(failure.message));
    return () => {
      live = false;
    };
  }, [type]);

  const more = async () => {
    if (!nextCursor || !triggers) return;
    try {
      const next = await page(type, nextCursor);
      setTriggers([...triggers, ...next.triggers]);
      setNextCursor(next.nextCursor);
    } catch (failure) {
      setError((failure as ApiError).message);
    }
  };

  const canCreate = choices?.domains.some((d) => d.canCreate) ?? false;
  return (
    <main class="page">
      <div class="heading-row">
        <h1>Triggers</h1>
        <nav class="actions" aria-label="Trigger actions">
          {canCreate && <a class="button" href="/console/triggers/new" onClick={onLinkClick}>New trigger</a>}
          <a class="button secondary" href="/console/triggers/api-keys" onClick={onLinkClick}>API keys</a>
        </nav>
      </div>
      <form class="filters" role="search" aria-label="Filter triggers" onSubmit={(e) => e.preventDefault()}>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All</option>
            <option value="schedule">Schedule</option>
            <option value="api">API</option>
            <option value="event">Event</option>
          </select>
        </label>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {triggers === null && !error && <p role="status">Loading triggers…</p>}
      {triggers?.length === 0 && (
        <p role="status">
          No triggers yet. {canCreate ? 'Create one to start agents and flows on a schedule, from an API call or from an event.' : 'An editor of a domain can create one.'}
        </p>
      )}
      {triggers && triggers.length > 0 && (
        <ul class="list" aria-label="Triggers">
          {triggers.map((trigger) => (
            <li key={trigger.id}>
              <a href={`/console/triggers/${trigger.id}`} onClick={onLinkClick}>{trigger.name}</a>
              <span class="meta">
                <span class="badge">{TYPE_LABEL[trigger.type]}</span>
                <span class={`badge ${trigger.active ? 'active' : 'paused'}`}>{trigger.active ? 'Active' : 'Paused'}</span>
                <span>{domainName(choices, trigger.domainId)}</span>
                <span>{trigger.subscribers.length === 1 ? '1 subscriber' : `${trigger.subscribers.length} subscribers`}</span>
                {trigger.type === 'schedule' && <ScheduleSummary config={trigger.config as unknown as ScheduleConfig} />}
              </span>
            </li>
          ))}
        </ul>
      )}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
    </main>
  );
}

function ScheduleSummary({ config }: { config: ScheduleConfig }) {
  return (
    <span>
      <code>{config.cron}</code> {config.timezone ?? 'UTC'}
      {config.nextRunAt && <> · next <time dateTime={config.nextRunAt}>{formatTime(config.nextRunAt)}</time></>}
    </span>
  );
}
