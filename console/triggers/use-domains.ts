// The choices a trigger form and list need: the person's domains by id and the event sources (GET /triggers/choices).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { TriggerChoices } from './types';

export function useTriggerChoices(): { choices: TriggerChoices | null; error: string | null } {
  const [choices, setChoices] = useState<TriggerChoices | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api<TriggerChoices>('GET', '/triggers/choices')
      .then((answer) => live && setChoices(answer))
      .catch((failure: Error) => live && setError(failure.message));
    return () => {
      live = false;
    };
  }, []);
  return { choices, error };
}

/** A domain's name, else the tail of its id (a domain the person left still names its triggers). */
export const domainName = (choices: TriggerChoices | null, domainId: string): string =>
  choices?.domains.find((d) => d.domainId === domainId)?.name ?? `Domain …${domainId.slice(-6)}`;
