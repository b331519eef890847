// /console/triggers/new: create a schedule, api or event trigger with its subscribers; the form checks what it can first.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAutomations } from '../automations';
import { navigate, onLinkClick, useTitle } from '../router';
import { previewCron, viewerTimeZone } from './cron-preview';
import { EventFields, filterValue, type EventDraft } from './event-fields';
import { parseInput, ScheduleFields, type ScheduleDraft } from './schedule-fields';
import { SecretDialog } from './secret-dialog';
import { explain, type CreatedTrigger, type CreateTriggerBody } from './types';
import { useTriggerChoices } from './use-domains';

type Kind = CreateTriggerBody['type'];

export function NewTriggerPage() {
  useTitle('New trigger');
  const { choices, error: choicesError } = useTriggerChoices();
  const automations = useAutomations();
  const [type, setType] = useState<Kind>('schedule');
  const [name, setName] = useState('');
  const [domainId, setDomainId] = useState('');
  const [subscribers, setSubscribers] = useState<string[]>([]);
  const [schedule, setSchedule] = useState<ScheduleDraft>({ cron: '0 9 * * 1-5', timezone: viewerTimeZone(), input: '' });
  const [event, setEvent] = useState<EventDraft>({ sourceIntegrationId: '', eventType: '', connectionId: '', filterField: '', filterOperator: 'equals', filterValue: '' });
  /** The service's refusal of the last submit; what the form can tell itself is recomputed live once submit was tried. */
  const [error, setError] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedTrigger | null>(null);

  const domains = choices?.domains.filter((d) => d.canCreate) ?? [];
  const domain = domainId || domains[0]?.domainId || '';
  const candidates = [...automations.values()].filter((a) => a.domainId === domain && !a.archived);

  /** What the form can tell before the service does; the service's own 400 is shown after. */
  const problem = (): string | null => {
    if (!domain) return 'Choose a domain.';
    if (!name.trim()) return 'Name the trigger.';
    if (type === 'schedule') {
      const preview = previewCron(schedule.cron, schedule.timezone);
      if (!preview.ok) return preview.message;
      const input = parseInput(schedule.input);
      if (!input.ok) return input.message;
    }
    if (type === 'event' && (!event.sourceIntegrationId || !event.eventType || !event.connectionId)) return 'Choose the event source, its event type and a connection.';
    return null;
  };

  const body = (): CreateTriggerBody => {
    const common = { domainId: domain, name: name.trim(), subscribers };
    if (type === 'api') return { type, ...common };
    if (type === 'schedule') {
      const input = parseInput(schedule.input);
      return { type, ...common, cron: schedule.cron.trim(), ...(schedule.timezone ? { timezone: schedule.timezone } : {}), ...(input.ok && input.value ? { input: input.value } : {}) };
    }
    const filter = event.filterField ? { eventFilter: { field: event.filterField, operator: event.filterOperator, value: filterValue(event.filterValue) } } : {};
    return { type, ...common, sourceIntegrationId: event.sourceIntegrationId, connectionId: event.connectionId, eventType: event.eventType, ...filter };
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setTried(true);
    setError(null);
    if (problem()) return;
    setBusy(true);
    try {
      const answer = await api<CreatedTrigger>('POST', '/triggers', body());
      // An event trigger's minted endpoint secret is in this answer only: show it before leaving.
      if (answer.endpointSecret) setCreated(answer);
      else navigate(`/console/triggers/${answer.trigger.id}`);
    } catch (failure) {
      setError(`The service refused the trigger: ${explain(failure)}`);
    } finally {
      setBusy(false);
    }
  };

  const toggle = (id: string, on: boolean) => setSubscribers((current) => (on ? [...current, id] : current.filter((s) => s !== id)));
  if (choicesError) return <main class="page"><p role="alert" class="error">{choicesError}</p></main>;
  if (!choices) return <main class="page"><p role="status">Loading…</p></main>;
  if (domains.length === 0) return <main class="page"><h1>New trigger</h1><p role="alert">You are not an editor or owner of any domain, so you cannot create triggers. <a href="/console/triggers" onClick={onLinkClick}>Back to the triggers</a>.</p></main>;
  return (
    <main class="page">
      <h1>New trigger</h1>
      <form class="stack form" onSubmit={submit} noValidate>
        <fieldset class="choice">
          <legend>Type</legend>
          {(['schedule', 'api', 'event'] as const).map((kind) => (
            <label key={kind} class="inline">
              <input type="radio" name="type" value={kind} checked={type === kind} disabled={kind === 'event' && !choices.eventTriggersEnabled} onChange={() => setType(kind)} />
              {kind === 'schedule' ? 'Schedule (cron)' : kind === 'api' ? 'API (fired with a key)' : 'Event (from an integration)'}
            </label>
          ))}
        </fieldset>
        <label>
          Name
          <input name="name" required maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Domain
          <select name="domain" value={domain} onChange={(e) => { setDomainId(e.currentTarget.value); setSubscribers([]); }}>
            {domains.map((d) => <option key={d.domainId} value={d.domainId}>{d.name}</option>)}
          </select>
        </label>
        <fieldset class="stack">
          <legend>Subscribers (they fire in the order you tick them)</legend>
          {candidates.length === 0 && <p>No agent or flow in this domain yet: the trigger will fire nothing until one subscribes.</p>}
          {candidates.map((a) => (
            <label key={a.id} class="inline">
              <input type="checkbox" checked={subscribers.includes(a.id)} onChange={(e) => toggle(a.id, e.currentTarget.checked)} />
              {a.name} <small>({a.kind}{a.publishedRevision === null ? ', not published: firings skip it' : ''})</small>
            </label>
          ))}
        </fieldset>
        {type === 'schedule' && <ScheduleFields draft={schedule} onChange={setSchedule} />}
        {type === 'event' && <EventFields sources={choices.eventSources} domainId={domain} draft={event} onChange={setEvent} />}
        {tried && problem() && <p role="alert" class="error">{problem()}</p>}
        {error && <p role="alert" class="error">{error}</p>}
        <div class="actions">
          <button type="submit" disabled={busy}>Create trigger</button>
          <a class="button secondary" href="/console/triggers" onClick={onLinkClick}>Cancel</a>
        </div>
      </form>
      {created?.endpointSecret && (
        <SecretDialog title="Endpoint secret" secret={created.endpointSecret} onClose={() => navigate(`/console/triggers/${created.trigger.id}`)}>
          <p>The provider signs each delivery to <code class="wrap">{created.trigger.deliveryUrl}</code> with this Standard Webhooks secret.</p>
        </SecretDialog>
      )}
    </main>
  );
}
