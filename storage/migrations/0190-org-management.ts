// Management over HTTP (issue 13 item 6): customer suspension, disabled memberships, connection rotation time.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 190,
  name: 'org-management',
  up(db) {
    db.exec(`
      -- A suspended customer's credentials, leases and fires stop (docs/decisions.md "Suspending a customer").
      ALTER TABLE organizations ADD COLUMN suspended_at INTEGER;
      -- A disabled member keeps their rows (sessions, authorship) but no credential of theirs works in this organization.
      ALTER TABLE org_memberships ADD COLUMN disabled_at INTEGER;
      ALTER TABLE connections ADD COLUMN rotated_at INTEGER;
      CREATE INDEX organizations_partner ON organizations(partner_id, created_at, id) WHERE partner_id IS NOT NULL;
    `);
  },
};
