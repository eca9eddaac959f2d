import { describe, expect, it } from 'vitest';
import { batchWrites } from '../../src/render/line-batcher.js';
import { createTracePrinter } from '../../src/render/trace-printer.js';

describe('batchWrites', () => {
  it('writes the lines of one turn of the event loop at once, and everything pending on flush', async () => {
    const writes: string[] = [];
    const b = batchWrites({ write: (s: string) => writes.push(s) });
    b.write('a\n');
    b.write('b\n');
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['a\nb\n']);
    b.write('c\n');
    b.flush();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
    await new Promise((r) => setImmediate(r));
    expect(writes).toHaveLength(2);
  });

  it('spaces the writes of a busy stream: lines of the turns within minIntervalMs of a write wait for its end', async () => {
    const writes: string[] = [];
    const b = batchWrites({ write: (s: string) => writes.push(s) }, { minIntervalMs: 200 });
    const turn = () => new Promise((r) => setImmediate(r));
    b.write('a\n');
    await turn();
    expect(writes).toEqual(['a\n']); // the first write is not held
    b.write('b\n');
    await turn();
    b.write('c\n');
    await turn();
    expect(writes).toEqual(['a\n']);
    await new Promise((r) => setTimeout(r, 300));
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    b.write('d\n');
    b.flush(); // flush() never waits
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
    await new Promise((r) => setTimeout(r, 300));
    expect(writes).toHaveLength(3);
  });

  it('does not hold more than maxChars', () => {
    const writes: string[] = [];
    const b = batchWrites({ write: (s: string) => writes.push(s) }, { maxChars: 10 });
    b.write('12345');
    b.write('67890');
    expect(writes).toEqual(['1234567890']);
  });
});

describe('a batched trace printer', () => {
  it('prints every record by end(), in order', () => {
    let out = '';
    const p = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) }, stages: 'all', batch: true });
    for (let i = 0; i < 3; i++) p.write({ time: 0, stage: 'watch', op: 'ADDED', key: `ns/p${i}`, rv: String(i), type: 'ADDED' });
    expect(out).toBe('');
    p.end();
    expect(out.trim().split('\n').map((l) => JSON.parse(l).key)).toEqual(['ns/p0', 'ns/p1', 'ns/p2']);
  });
});
