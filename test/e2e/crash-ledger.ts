// The crash test's workspace and ledger: every request written down before it is sent, its answer after.
/*
 * The final checks (crash-checks.ts) hold the database to this ledger: an answered record must exist exactly as
 * answered; an unanswered one (cut off by a kill) may have committed or not, at most once. Keyed records and
 * decisions left unanswered are owed a retry after the restart.
 */
import { fireWorkspace } from '../helpers/fire-workspace.js';

/** The caller token every caller-credential request carries (crm integration). */
export const CALLER_TOKEN = 'crash-caller-token-7d1e';
/** The `signup` event trigger's endpoint secret in the contract example. */
export const SIGNUP_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** The schedule trigger whose ticks fall due while the service is down. */
const TICK_CRON = '*/5 * * * *';

/**
 * fireWorkspace (the contract example + fire additions) with the crm pointed at the parent's upstream, a
 * `ticker` schedule trigger every 5 minutes (UTC) on `lookup`, and a partner quota the test cannot exhaust.
 */
export function crashWorkspace(crmBaseUrl: string): any {
  const manifest = fireWorkspace({ crmBaseUrl });
  manifest.organizations[0].triggers.push({
    ref: 'ticker',
    type: 'schedule',
    domain: 'sales',
    name: 'Ticker',
    cron: TICK_CRON,
    timezone: 'UTC',
    input: { id: 'c-tick' },
    subscribers: ['lookup'],
    active: true,
  });
  manifest.partners[0].provisioning.quota = 100_000;
  return manifest;
}

export interface FireAnswer {
  runId: string;
  sessions: Array<{ automationId: string; sessionId: string }>;
}

export interface OpenRecord {
  agent: 'lookup' | 'upgrader';
  contactId: string;
  answer?: { sessionId: string; executionId: string };
}

export interface AppendRecord {
  sessionId: string;
  answer?: { executionId: string };
}

export interface FireRecord {
  key: string | null;
  trigger: string;
  /** Sent byte for byte on every retry (the claim fingerprints it). */
  body: string;
  contactId: string;
  answer?: FireAnswer;
  attempts: number;
}

export interface DecisionRecord {
  sessionId: string;
  approvalId: string;
  decision: 'approved' | 'rejected';
  editedArgs?: Record<string, unknown>;
  /** 200 on the first answered attempt; 409 only for a retry whose cut-off original had committed. */
  answered?: 200 | 409;
  attempts: number;
}

export interface ProvisionRecord {
  key: string;
  body: Record<string, unknown>;
  /** 202 with the organization; `unknown` is a retry told IDEMPOTENCY_OUTCOME_UNKNOWN (the original died mid-way). */
  answer?: { orgId: string } | 'unknown';
  attempts: number;
}

export interface EventRecord {
  /** The sender's webhook-id: a redelivery carries the same one (and a fresh signature). */
  messageId: string;
  body: string;
  answer?: { runId: string | null; duplicate: boolean };
  attempts: number;
}

/** An upgrader session the load may decide, known from an open or a fan fire's answer. */
export interface GatedSession {
  sessionId: string;
  contactId: string;
  /** Set once a worker took it (so two workers never decide one session). */
  taken: boolean;
}

export type Owed = FireRecord | DecisionRecord | ProvisionRecord | EventRecord;

export class Ledger {
  readonly opens: OpenRecord[] = [];
  readonly appends: AppendRecord[] = [];
  readonly fires: FireRecord[] = [];
  readonly decisions: DecisionRecord[] = [];
  readonly provisions: ProvisionRecord[] = [];
  readonly events: EventRecord[] = [];
  readonly lookupSessions: string[] = [];
  readonly gated = new Map<string, GatedSession>();
  /** Answers that break the contract, with what was sent. */
  readonly wrong: string[] = [];
  /** Requests a kill cut off, per kind. */
  readonly cut: Record<string, number> = {};
  /** Replays of answered keys that came back identical with Idempotency-Replayed: true. */
  replays = 0;
  private serial = 0;

  next(): number {
    return this.serial++;
  }

  /** Keyed or deciding requests still owed an answer; retried first by every worker. */
  retries(): Owed[] {
    return [
      ...this.fires.filter((f) => f.key !== null && f.answer === undefined),
      ...this.decisions.filter((d) => d.answered === undefined),
      ...this.provisions.filter((p) => p.answer === undefined),
      ...this.events.filter((e) => e.answer === undefined),
    ];
  }
}

export interface Target {
  port: number;
  refs: Record<string, string>;
  /** The child's clock (Date.now() plus the boot's offset). */
  now(): number;
}
