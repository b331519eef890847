// The repo's examples/workspace.json stays a byte-for-byte copy of the contract's example (when the contract is beside it).
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { CONTRACT_EXAMPLE_PATH, EXAMPLE_PATH } from '../../helpers/contract-example.js';

const contractPresent = existsSync(CONTRACT_EXAMPLE_PATH);

t.test(
  'examples/workspace.json is a verbatim copy of ../shared/examples/workspace.json (issue 13 item 9)',
  { skip: contractPresent ? false : `no contract folder beside this clone (${CONTRACT_EXAMPLE_PATH} is absent): nothing to compare` },
  async (t) => {
    const copy = readFileSync(EXAMPLE_PATH);
    const contract = readFileSync(CONTRACT_EXAMPLE_PATH);
    t.ok(copy.equals(contract), `the in-repo copy (${copy.length} bytes) equals the contract's (${contract.length} bytes); re-copy it if the contract changed`);
  },
);

t.test('the in-repo copy parses as a manifest document every fixture can read', async (t) => {
  const manifest = JSON.parse(readFileSync(EXAMPLE_PATH, 'utf8'));
  t.ok(Array.isArray(manifest.integrations) && manifest.integrations.length > 0, 'it declares integrations');
});
