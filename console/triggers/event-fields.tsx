// The event part of the trigger form: source integration, catalog event, connection, and an optional filter.
import type { EventSource, FilterOperator, JsonValue } from './types';

export interface EventDraft {
  sourceIntegrationId: string;
  eventType: string;
  connectionId: string;
  filterField: string;
  filterOperator: FilterOperator;
  filterValue: string;
}

export const OPERATORS: readonly FilterOperator[] = ['equals', 'not-equals', '>', '<', 'contains'];

/** A filter value as typed: JSON when it parses (50, true, "gold"), otherwise the text itself. */
export function filterValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

export function EventFields({ sources, domainId, draft, onChange }: { sources: EventSource[]; domainId: string; draft: EventDraft; onChange: (draft: EventDraft) => void }) {
  if (sources.length === 0) {
    return <p role="alert" class="error">No integration of this organization delivers signed events through a connected account yet. An organization admin adds the connection first.</p>;
  }
  const source = sources.find((s) => s.integrationId === draft.sourceIntegrationId);
  const event = source?.events.find((e) => e.type === draft.eventType);
  const connections = source?.connections.filter((c) => c.domainId === null || c.domainId === domainId) ?? [];
  const set = (patch: Partial<EventDraft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset class="stack">
      <legend>Event</legend>
      <label>
        Source
        <select name="source" required value={draft.sourceIntegrationId} onChange={(e) => set({ sourceIntegrationId: e.currentTarget.value, eventType: '', connectionId: '', filterField: '' })}>
          <option value="">Choose an integration</option>
          {sources.map((s) => <option key={s.integrationId} value={s.integrationId}>{s.name}</option>)}
        </select>
      </label>
      {source && (
        <>
          <label>
            Event type
            <select name="eventType" required value={draft.eventType} onChange={(e) => set({ eventType: e.currentTarget.value, filterField: '' })}>
              <option value="">Choose an event</option>
              {source.events.map((e) => <option key={e.type} value={e.type}>{e.type}</option>)}
            </select>
          </label>
          <label>
            Connection
            <select name="connection" required value={draft.connectionId} onChange={(e) => set({ connectionId: e.currentTarget.value })}>
              <option value="">Choose a connection</option>
              {connections.map((c) => <option key={c.connectionId} value={c.connectionId}>{c.domainId === null ? 'Organization-wide' : 'This domain'} (…{c.connectionId.slice(-6)})</option>)}
            </select>
            {connections.length === 0 && <small class="error">No connected account of this integration serves the chosen domain.</small>}
          </label>
        </>
      )}
      {event && (
        <fieldset class="filters">
          <legend>Filter (optional: only matching events fire)</legend>
          <label>
            Field
            <select name="filterField" value={draft.filterField} onChange={(e) => set({ filterField: e.currentTarget.value })}>
              <option value="">Every event fires</option>
              <option value="occurredAt">occurredAt</option>
              <option value="actor">actor</option>
              {event.payloadPaths.map((path) => <option key={path} value={path}>{path}</option>)}
            </select>
          </label>
          {draft.filterField && (
            <>
              <label>
                Operator
                <select name="filterOperator" value={draft.filterOperator} onChange={(e) => set({ filterOperator: e.currentTarget.value as FilterOperator })}>
                  {OPERATORS.map((op) => <option key={op} value={op}>{op}</option>)}
                </select>
              </label>
              <label>
                Value
                <input name="filterValue" required value={draft.filterValue} onInput={(e) => set({ filterValue: e.currentTarget.value })} />
                <small>Numbers and true/false as typed; anything else is text.</small>
              </label>
            </>
          )}
        </fieldset>
      )}
    </fieldset>
  );
}
