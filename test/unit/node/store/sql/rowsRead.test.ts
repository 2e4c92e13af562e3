import { strict as assert } from 'assert';
import { rows } from '../../../../../src/node/store/sql/connection';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';

/**
 * Opening a long session reads tens of thousands of rows (a never-compacted session's whole
 * transcript): each row comes back as an object keyed by column, with the column names asked of
 * sql.js once per query, not once per row (each is a string copied out of the database's memory).
 */
describe('reading rows', () => {
  it('gives each row as an object by column, asking for the column names once per query', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    db.run('CREATE TABLE messages (id TEXT, created_at INTEGER, body TEXT, extra BLOB)');
    for (let i = 0; i < 1_000; i++) db.run('INSERT INTO messages VALUES (?, ?, ?, ?)', [`m${i}`, i, i % 7 ? `{"n":${i}}` : null, i === 3 ? new Uint8Array([1, 2]) : null]);
    const statement = Object.getPrototypeOf(db.prepare('SELECT 1'));
    const names = statement.getColumnNames;
    let asked = 0;
    statement.getColumnNames = function (this: unknown) {
      asked++;
      return names.call(this);
    };
    try {
      const read = rows(db, 'SELECT id, created_at, body, extra FROM messages WHERE created_at >= ? ORDER BY created_at', [0]);
      assert.equal(read.length, 1_000);
      assert.deepEqual(read[0], { id: 'm0', created_at: 0, body: null, extra: null });
      assert.deepEqual(read[3], { id: 'm3', created_at: 3, body: '{"n":3}', extra: new Uint8Array([1, 2]) });
      assert.deepEqual(Object.keys(read[999]), ['id', 'created_at', 'body', 'extra']);
      assert.ok(asked <= 1, `column names asked for ${asked} times for 1,000 rows`);
      assert.deepEqual(rows(db, 'SELECT id FROM messages WHERE created_at < 0'), [], 'no row, no names needed');
    } finally {
      statement.getColumnNames = names;
      db.close();
    }
  });
});
