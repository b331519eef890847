// Proves spec "States and transitions" maps one to one onto the machines, and that no machine holds an undocumented transition.
import { readdirSync } from 'node:fs';
import t from 'tap';
import { createMachine, type AnyStateMachine } from 'xstate';
import { durableMachine } from '../../runtime/actors/durable-step.js';
import { agentRevisionMachine } from '../../machines/agent-revision.machine.js';
import { MACHINE_CATALOG } from '../../machines/catalog.js';
import { idempotencyClaimMachine } from '../../machines/idempotency-claim.machine.js';
import { listTransitions, type DefinedTransition } from '../../machines/introspect.js';
import { provisioningClaimMachine } from '../../machines/provisioning-claim.machine.js';
import { CALLER_CREDENTIAL_EXPIRED, sessionTurnMachine } from '../../machines/session-turn.machine.js';
import type { SpecTableRow } from '../../machines/spec-row.js';

type Cells = readonly [state: string, trigger: string, condition: string, next: string, effects: string];

// Transcribed verbatim from spec/SPEC.md, "States and transitions" (all 14 rows, in order).
const SPEC_TABLE: readonly Cells[] = [
  ['Agent draft', 'POST publish', 'procedure verifier finds no problems', 'published revision (integer `revision`)', 'returns the planned bindings (`belt`); no approval gate'],
  ['Agent draft', 'POST publish', 'verifier finds problems', 'stays draft', '422 VALIDATION with findings'],
  ['Agent draft', 'PATCH setup', 'any valid body', 'draft (fields updated)', 'no revision created, published pointer not moved'],
  ['Session idle', 'POST sessions (open) or POST messages', 'valid request and permission', 'turn queued (202 on open, 200 on message)', 'executionId returned'],
  ['Turn running', 'a write tool needing approval is reached', '', 'turn suspended', '`turn.suspended` event with approvalId'],
  ['Turn suspended', 'POST turn-approval with decision `approved`', 'approvalId matches if supplied', 'resume queued', 'returns immediately; editedArgs used if supplied; supplied callerCredentials replace an expired grant'],
  ['Turn suspended', 'POST turn-approval with decision `rejected`', '', 'rejected', '`editedArgs` with rejection gives 400 VALIDATION'],
  ['Turn suspended', 'approval after caller grant expiry with no replacement credentials', '', 'resumes with the gated call as a failed tool result', 'error code CALLER_CREDENTIAL_EXPIRED; no fallback to organization identity'],
  ['Idempotency claim absent', 'first fire request with key', '', 'in progress', ''],
  ['Idempotency claim in progress', 'original completes', '', 'completed', 'replay returns original status and body with `Idempotency-Replayed: true`'],
  ['Idempotency claim (fire)', '24 hours elapse', '', 'expired', 'key reusable immediately'],
  ['Provisioning claim', '7 days elapse', '', 'expired', 'next request with the key runs as fresh; unretried rows are swept'],
  ['Provisioning claim', 'named refusal before organization creation', '', 'released', 'corrected request may reuse the key'],
  ['Provisioning claim', 'unknown failure after execution may have begun', '', 'retained as indeterminate', 'later requests get IDEMPOTENCY_OUTCOME_UNKNOWN'],
];

const rowKey = (cells: Cells): string => cells.slice(0, 3).join(' | ');

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

type LooseEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

// Drives the machine through events (each with its time) by the runtime's own durable step, with everything it emitted.
function drive(machine: AnyStateMachine, input: unknown, events: readonly LooseEvent[]) {
  const step = durableMachine(machine).start(input as never, events as never);
  return { snapshot: step.snapshot, emitted: step.emitted as { type: string }[] };
}

const turn = { executionId: 'exec-1', sessionId: 'sess-1' };
const toSuspended = (grantExpiresAt: number | null) => [
  { type: 'OPEN', now: 0, valid: true, permitted: true },
  { type: 'START', now: 1 },
  { type: 'SUSPEND', now: 2, approvalId: 'appr-1', toolName: 'crm.update', args: { id: 7 }, grantExpiresAt },
];
const claimed = { type: 'CLAIM', now: 0, fingerprint: 'fp', owner: 'req-1', leaseMs: 30_000 };

type Asserts = Pick<typeof t, 'equal' | 'same' | 'match' | 'ok'>;

interface RowProof {
  readonly machine: AnyStateMachine;
  /** Stated here independently of the machine's own SPEC_ROWS. */
  readonly transitions: readonly DefinedTransition[];
  readonly drive: (tt: Asserts) => void;
}

const PROOFS: Record<string, RowProof> = {
  [rowKey(SPEC_TABLE[0])]: {
    machine: agentRevisionMachine,
    transitions: [{ source: 'draft', event: 'PUBLISH', guard: 'verifierClean', target: 'published' }],
    drive: (tt) => {
      const { snapshot, emitted } = drive(agentRevisionMachine, { agentId: 'a' }, [{ type: 'PUBLISH', now: 5, findings: [] }]);
      tt.equal(snapshot.value, 'published');
      tt.equal(snapshot.context.publishedRevision, 1, 'integer revision');
      tt.match(emitted, [{ type: 'revision.published', revision: 1 }]);
    },
  },
  [rowKey(SPEC_TABLE[1])]: {
    machine: agentRevisionMachine,
    transitions: [{ source: 'draft', event: 'PUBLISH', guard: 'verifierFoundProblems', target: 'draft' }],
    drive: (tt) => {
      const findings = [{ code: 'UNKNOWN_TOOL', message: '#crm.nope' }];
      const { snapshot, emitted } = drive(agentRevisionMachine, { agentId: 'a' }, [{ type: 'PUBLISH', now: 5, findings }]);
      tt.equal(snapshot.value, 'draft');
      tt.equal(snapshot.context.revisionCount, 0);
      tt.same(emitted, [{ type: 'publish.refused', agentId: 'a', findings }], '422 carries the findings');
    },
  },
  [rowKey(SPEC_TABLE[2])]: {
    machine: agentRevisionMachine,
    transitions: [{ source: 'draft', event: 'PATCH_SETUP', target: 'draft' }],
    drive: (tt) => {
      const { snapshot } = drive(agentRevisionMachine, { agentId: 'a' }, [{ type: 'PATCH_SETUP', now: 5 }]);
      tt.equal(snapshot.value, 'draft');
      tt.equal(snapshot.context.revisionCount, 0, 'no revision created');
      tt.equal(snapshot.context.publishedRevision, null, 'published pointer not moved');
      tt.equal(snapshot.context.draftUpdatedAt, 5, 'fields updated');
    },
  },
  [rowKey(SPEC_TABLE[3])]: {
    machine: sessionTurnMachine,
    transitions: [
      { source: 'idle', event: 'OPEN', guard: 'validAndPermitted', target: 'queued' },
      { source: 'idle', event: 'MESSAGE', guard: 'validAndPermitted', target: 'queued' },
    ],
    drive: (tt) => {
      const open = drive(sessionTurnMachine, turn, [{ type: 'OPEN', now: 0, valid: true, permitted: true }]);
      tt.equal(open.snapshot.value, 'queued');
      tt.equal(open.snapshot.context.entry, 'open', '202 on open');
      const message = drive(sessionTurnMachine, turn, [{ type: 'MESSAGE', now: 0, valid: true, permitted: true }]);
      tt.equal(message.snapshot.value, 'queued');
      tt.match(message.emitted, [{ type: 'turn.queued', executionId: 'exec-1', entry: 'message' }], '200 on message, executionId');
      const denied = drive(sessionTurnMachine, turn, [{ type: 'MESSAGE', now: 0, valid: true, permitted: false }]);
      tt.equal(denied.snapshot.value, 'idle', 'without permission the turn is not queued');
    },
  },
  [rowKey(SPEC_TABLE[4])]: {
    machine: sessionTurnMachine,
    transitions: [{ source: 'running', event: 'SUSPEND', target: 'suspended' }],
    drive: (tt) => {
      const { snapshot, emitted } = drive(sessionTurnMachine, turn, toSuspended(null));
      tt.equal(snapshot.value, 'suspended');
      tt.match(emitted.at(-1), { type: 'turn.suspended', approvalId: 'appr-1', toolName: 'crm.update' });
    },
  },
  [rowKey(SPEC_TABLE[5])]: {
    machine: sessionTurnMachine,
    transitions: [{ source: 'suspended', event: 'APPROVE', guard: 'approvalIdMatches', target: 'resumeQueued' }],
    drive: (tt) => {
      const approve = { type: 'APPROVE', now: 10 * HOUR, approvalId: 'appr-1', editedArgs: { id: 8 }, replacementCredentials: true };
      const { snapshot } = drive(sessionTurnMachine, turn, [...toSuspended(HOUR), approve]);
      tt.equal(snapshot.value, 'resumeQueued');
      tt.match(snapshot.context.lastDecision, { editedArgs: { id: 8 }, replacementCredentials: true, gatedCallError: null });
      const stale = drive(sessionTurnMachine, turn, [...toSuspended(null), { ...approve, approvalId: 'appr-0' }]);
      tt.equal(stale.snapshot.value, 'suspended', 'a different approvalId is not taken');
    },
  },
  [rowKey(SPEC_TABLE[6])]: {
    machine: sessionTurnMachine,
    transitions: [{ source: 'suspended', event: 'REJECT', guard: 'approvalIdMatches', target: 'rejected' }],
    drive: (tt) => {
      const { snapshot } = drive(sessionTurnMachine, turn, [...toSuspended(null), { type: 'REJECT', now: 3 }]);
      tt.equal(snapshot.value, 'rejected');
      tt.equal(snapshot.status, 'done');
    },
  },
  [rowKey(SPEC_TABLE[7])]: {
    machine: sessionTurnMachine,
    transitions: [{ source: 'suspended', event: 'APPROVE', guard: 'grantExpiredWithoutReplacement', target: 'resumeQueued' }],
    drive: (tt) => {
      const approve = { type: 'APPROVE', now: HOUR, replacementCredentials: false };
      const { snapshot } = drive(sessionTurnMachine, turn, [...toSuspended(HOUR), approve]);
      tt.equal(snapshot.value, 'resumeQueued', 'resumes');
      tt.equal(snapshot.context.lastDecision?.gatedCallError, CALLER_CREDENTIAL_EXPIRED, 'gated call is a failed tool result');
    },
  },
  [rowKey(SPEC_TABLE[8])]: {
    machine: idempotencyClaimMachine,
    transitions: [{ source: 'absent', event: 'CLAIM', target: 'inProgress' }],
    drive: (tt) => {
      tt.equal(drive(idempotencyClaimMachine, { key: 'k' }, [claimed]).snapshot.value, 'inProgress');
    },
  },
  [rowKey(SPEC_TABLE[9])]: {
    machine: idempotencyClaimMachine,
    transitions: [{ source: 'inProgress', event: 'COMPLETE', guard: 'isOriginalOwner', target: 'completed' }],
    drive: (tt) => {
      const response = { status: 202, body: { sessions: [] } };
      const { snapshot } = drive(idempotencyClaimMachine, { key: 'k' }, [claimed, { type: 'COMPLETE', now: 1, owner: 'req-1', response }]);
      tt.equal(snapshot.value, 'completed');
      tt.same(snapshot.context.response, response, 'original status and body kept for replay');
    },
  },
  [rowKey(SPEC_TABLE[10])]: {
    machine: idempotencyClaimMachine,
    transitions: [
      { source: 'inProgress', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired' },
      { source: 'completed', event: 'TICK', guard: 'claimWindowElapsed', target: 'expired' },
    ],
    drive: (tt) => {
      const done = { type: 'COMPLETE', now: 1, owner: 'req-1', response: { status: 202, body: {} } };
      tt.equal(drive(idempotencyClaimMachine, { key: 'k' }, [claimed, done, { type: 'TICK', now: DAY }]).snapshot.value, 'expired');
      tt.equal(drive(idempotencyClaimMachine, { key: 'k' }, [claimed, { type: 'TICK', now: DAY }]).snapshot.value, 'expired');
      const again = drive(idempotencyClaimMachine, { key: 'k' }, [claimed, done, { type: 'TICK', now: DAY }, { ...claimed, now: DAY }]);
      tt.equal(again.snapshot.value, 'inProgress', 'key reusable immediately');
    },
  },
  [rowKey(SPEC_TABLE[11])]: {
    machine: provisioningClaimMachine,
    transitions: ['inProgress', 'completed', 'released', 'indeterminate'].map((source) => ({
      source, event: 'TICK', guard: 'claimWindowElapsed', target: 'expired',
    })),
    drive: (tt) => {
      const { snapshot, emitted } = drive(provisioningClaimMachine, { key: 'k' }, [claimed, { type: 'FAIL_UNKNOWN', now: 1, owner: 'req-1' }, { type: 'TICK', now: 7 * DAY }]);
      tt.equal(snapshot.value, 'expired');
      tt.match(emitted.at(-1), { type: 'claim.expired', key: 'k' }, 'row is swept');
    },
  },
  [rowKey(SPEC_TABLE[12])]: {
    machine: provisioningClaimMachine,
    transitions: [{ source: 'inProgress', event: 'REFUSE', guard: 'isOriginalOwner', target: 'released' }],
    drive: (tt) => {
      const refuse = { type: 'REFUSE', now: 1, owner: 'req-1', code: 'CLIENT_SEGMENT_INVALID' };
      const { snapshot } = drive(provisioningClaimMachine, { key: 'k' }, [claimed, refuse, { ...claimed, now: 2, fingerprint: 'fp-corrected' }]);
      tt.equal(snapshot.value, 'inProgress', 'corrected request reuses the key');
    },
  },
  [rowKey(SPEC_TABLE[13])]: {
    machine: provisioningClaimMachine,
    transitions: [{ source: 'inProgress', event: 'FAIL_UNKNOWN', guard: 'isOriginalOwner', target: 'indeterminate' }],
    drive: (tt) => {
      tt.equal(drive(provisioningClaimMachine, { key: 'k' }, [claimed, { type: 'FAIL_UNKNOWN', now: 1, owner: 'req-1' }]).snapshot.value, 'indeterminate');
    },
  },
};

const shape = (r: SpecTableRow | DefinedTransition): DefinedTransition =>
  r.guard === undefined ? { source: r.source, event: r.event, target: r.target } : { source: r.source, event: r.event, guard: r.guard, target: r.target };

/** Transitions the definition holds that the table lacks, and table rows the definition lacks, in order. */
function compareWithTable(machine: AnyStateMachine, rows: readonly SpecTableRow[]) {
  const defined = listTransitions(machine).map((d) => JSON.stringify(shape(d)));
  const documented = rows.map((r) => JSON.stringify(shape(r)));
  return {
    defined,
    documented,
    undocumented: defined.filter((d) => !documented.includes(d)),
    missing: documented.filter((d) => !defined.includes(d)),
  };
}

t.test('the transcription holds 14 distinct rows and every one has a proof', async (tt) => {
  tt.equal(SPEC_TABLE.length, 14);
  tt.equal(new Set(SPEC_TABLE.map(rowKey)).size, 14);
  tt.same(Object.keys(PROOFS).sort(), SPEC_TABLE.map(rowKey).sort());
});

for (const cells of SPEC_TABLE) {
  const key = rowKey(cells);
  t.test(`spec row: ${key} -> ${cells[3]}`, async (tt) => {
    const proof = PROOFS[key];
    const expected = proof.transitions.map((x) => JSON.stringify(shape(x))).sort();
    const claimedBy = MACHINE_CATALOG.flatMap((e) => e.specRows.filter((r) => r.specRow === key).map((r) => ({ machine: e.machine, row: r })));
    tt.ok(claimedBy.every((c) => c.machine === proof.machine), `only ${proof.machine.id} implements it`);
    tt.same(claimedBy.map((c) => JSON.stringify(shape(c.row))).sort(), expected, 'SPEC_ROWS maps the row to exactly these transitions');
    const defined = listTransitions(proof.machine).map((d) => JSON.stringify(shape(d)));
    for (const x of expected) tt.ok(defined.includes(x), `definition holds ${x}`);
    proof.drive(tt);
  });
}

t.test('SPEC_ROWS cite only real spec rows, and extensions say why', async (tt) => {
  const keys = new Set(SPEC_TABLE.map(rowKey));
  for (const entry of MACHINE_CATALOG) {
    for (const row of entry.specRows) {
      if (row.specRow !== undefined) tt.ok(keys.has(row.specRow), `${entry.name}: "${row.specRow}" is a spec row`);
      else tt.ok(row.extension.trim().length > 10, `${entry.name}: ${row.source} ${row.event} explains itself`);
    }
  }
});

t.test('no machine holds a transition its table does not document, in any state', async (tt) => {
  for (const entry of MACHINE_CATALOG) {
    const cmp = compareWithTable(entry.machine, entry.specRows);
    tt.same(cmp.undocumented, [], `${entry.name}: no undocumented transition`);
    tt.same(cmp.missing, [], `${entry.name}: no documented transition is missing`);
    tt.same(cmp.defined, cmp.documented, `${entry.name}: table lists the transitions in definition (evaluation) order`);
  }
});

t.test('the comparison catches an added transition, a changed guard and a changed target', async (tt) => {
  const rows: SpecTableRow[] = [{ source: 'a', event: 'GO', guard: 'ok', target: 'b', extension: 'fixture for this test' }];
  const machine = (on: Record<string, unknown>) =>
    createMachine({ id: 'fixture', initial: 'a', states: { a: { on }, b: {} } } as never, { guards: { ok: () => true, other: () => true } } as never);
  tt.same(compareWithTable(machine({ GO: { guard: 'ok', target: 'b' } }), rows).undocumented, []);
  tt.same(compareWithTable(machine({ GO: { guard: 'ok', target: 'b' }, EXTRA: 'b' }), rows).undocumented, ['{"source":"a","event":"EXTRA","target":"b"}']);
  tt.equal(compareWithTable(machine({ GO: { guard: 'other', target: 'b' } }), rows).undocumented.length, 1);
  tt.equal(compareWithTable(machine({ GO: { guard: 'ok', target: 'a' } }), rows).undocumented.length, 1);
  tt.equal(compareWithTable(machine({ GO: { guard: () => true, target: 'b' } }), rows).undocumented.length, 1, 'inline guards never match');
});

t.test('the catalog covers every machines/*.machine.ts file', async (tt) => {
  const files = readdirSync(new URL('../../machines/', import.meta.url)).filter((f) => f.endsWith('.machine.ts'));
  tt.same(files.map((f) => f.replace('.machine.ts', '')).sort(), MACHINE_CATALOG.map((e) => e.name).sort());
  for (const entry of MACHINE_CATALOG) tt.ok(Number.isInteger(entry.version) && entry.version >= 1, `${entry.name} has an integer MACHINE_VERSION`);
});
