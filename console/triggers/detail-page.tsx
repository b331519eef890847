// /console/triggers/:id: one trigger (configuration, subscribers), pause/resume, delete, and its Run history.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { formatTime } from '../format';
import { navigate, onLinkClick, useTitle } from '../router';
import { RunHistory } from './run-history';
import { explain, TYPE_LABEL, type EventConfig, type ScheduleConfig, type TriggerDetail } from './types';
import { domainName, useTriggerChoices } from './use-domains';

export function TriggerPage({ triggerId }: { triggerId: string }) {
  const [detail, setDetail] = useState<TriggerDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { choices } = useTriggerChoices();
  useTitle(detail?.trigger.name ?? 'Trigger');

  const load = () =>
    api<TriggerDetail>('GET', `/triggers/${encodeURIComponent(triggerId)}`)
      .then(setDetail)
      .catch((failure: ApiError) => setError(failure.status === 404 ? 'This trigger does not exist (it may have been deleted), or you cannot see it.' : failure.message));
  useEffect(() => void load(), [triggerId]);

  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    try {
      await run();
    } catch (failure) {
      setActionError(explain(failure));
    } finally {
      setBusy(false);
    }
  };
  const setActive = (active: boolean) => act(async () => setDetail(await api<TriggerDetail>('POST', `/triggers/${triggerId}/${active ? 'resume' : 'pause'}`)));
  const remove = () => act(async () => {
    await api('DELETE', `/triggers/${triggerId}`);
    navigate('/console/triggers', true);
  });

  if (error) return <main class="page"><p role="alert" class="error">{error} <a href="/console/triggers" onClick={onLinkClick}>Back to the triggers</a>.</p></main>;
  if (!detail) return <main class="page"><p role="status">Loading trigger…</p></main>;
  const { trigger, subscribers } = detail;
  const canEdit = choices?.domains.find((d) => d.domainId === trigger.domainId)?.canCreate ?? false;
  return (
    <main class="page">
      <p><a href="/console/triggers" onClick={onLinkClick}>← Triggers</a></p>
      <h1>{trigger.name}</h1>
      <p class="meta">
        <span class="badge">{TYPE_LABEL[trigger.type]}</span>
        <span role="status" class={`badge ${trigger.active ? 'active' : 'paused'}`}>{trigger.active ? 'Active' : 'Paused'}</span>
        <span>{domainName(choices, trigger.domainId)}</span>
        <span>Created <time dateTime={trigger.createdAt}>{formatTime(trigger.createdAt)}</time></span>
      </p>
      <dl class="facts">
        {trigger.type === 'schedule' && <ScheduleFacts config={trigger.config as unknown as ScheduleConfig} paused={!trigger.active} />}
        {trigger.type === 'event' && <EventFacts config={trigger.config as unknown as EventConfig} deliveryUrl={trigger.deliveryUrl} />}
        {trigger.type === 'api' && <><dt>Fire it with</dt><dd><code class="wrap">POST /api/v1/triggers/fire {`{"triggerId": "${trigger.id}"}`}</code> and an <a href="/console/triggers/api-keys" onClick={onLinkClick}>API key</a></dd></>}
      </dl>
      <section aria-labelledby="subscribers-title">
        <h2 id="subscribers-title">Subscribers</h2>
        {subscribers.length === 0 ? <p>Nobody subscribes: a firing starts nothing.</p> : (
          <ol class="list" aria-label="Subscribers">
            {subscribers.map((s) => (
              <li key={s.automationId}>
                <span>{s.name} <small>({s.kind})</small></span>
                {(!s.published || s.archived) && <span class="badge skipped">{s.archived ? 'archived' : 'not published'}: firings skip it</span>}
              </li>
            ))}
          </ol>
        )}
      </section>
      {canEdit && (
        <div class="actions" aria-label="Trigger actions" role="group">
          <button type="button" disabled={busy} onClick={() => setActive(!trigger.active)}>{trigger.active ? 'Pause' : 'Resume'}</button>
          {!confirming && <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>Delete</button>}
          {confirming && (
            <span role="alert" class="confirm">
              Delete “{trigger.name}” with its Run history? This cannot be undone.
              <button type="button" class="danger" disabled={busy} onClick={remove}>Delete for good</button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>Keep it</button>
            </span>
          )}
        </div>
      )}
      {actionError && <p role="alert" class="error">{actionError}</p>}
      <RunHistory triggerId={trigger.id} onNewRun={load} />
    </main>
  );
}

function ScheduleFacts({ config, paused }: { config: ScheduleConfig; paused: boolean }) {
  return (
    <>
      <dt>Cron</dt><dd><code>{config.cron}</code> in {config.timezone ?? 'UTC'}</dd>
      <dt>Next run</dt><dd>{paused ? 'None while paused' : config.nextRunAt ? <time dateTime={config.nextRunAt}>{formatTime(config.nextRunAt)}</time> : 'Never (the pattern has no future slot)'}</dd>
      {Object.keys(config.input).length > 0 && <><dt>Input</dt><dd><pre>{JSON.stringify(config.input, null, 2)}</pre></dd></>}
    </>
  );
}

function EventFacts({ config, deliveryUrl }: { config: EventConfig; deliveryUrl?: string }) {
  const filter = config.eventFilter;
  return (
    <>
      <dt>Event</dt><dd><code>{config.eventType}</code> from {config.sourceIntegrationId}</dd>
      <dt>Filter</dt><dd>{filter ? <code>{`${filter.field} ${filter.operator} ${JSON.stringify(filter.value)}`}</code> : 'None: every event of the type fires'}</dd>
      {deliveryUrl && <><dt>Delivery URL</dt><dd><code class="wrap">{deliveryUrl}</code></dd></>}
    </>
  );
}
