import t from 'tap';
import { openDatabase } from '../../storage/database.js';
t.test('opens', async (t) => { const db = openDatabase(':memory:'); t.equal(db.pragma('foreign_keys', { simple: true }), 1); });
