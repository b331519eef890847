// The SSE sink both adapters share: write-through, queue on backpressure, flush on drain, drop past the bound.
import t from 'tap';
import { QueuedStreamSink, type StreamTransport } from '../../http/stream-sink.js';

/** A transport that accepts `room` writes, then pushes back until the test frees room again. */
class FakeTransport implements StreamTransport {
  written: string[] = [];
  ended = false;
  aborted = false;
  constructor(public room: number) {}
  write(chunk: string): boolean {
    this.written.push(chunk);
    this.room -= 1;
    return this.room > 0;
  }
  end(): void {
    this.ended = true;
  }
  abort(): void {
    this.aborted = true;
  }
}

t.test('writes go straight through until the transport pushes back, then queue and flush in order on drain', async (t) => {
  const transport = new FakeTransport(2);
  const finished: QueuedStreamSink[] = [];
  const sink = new QueuedStreamSink(transport, 100, (s) => finished.push(s));
  t.ok(sink.write('a'));
  t.ok(sink.write('b'), 'the write that filled the transport is still accepted (the transport buffered it)');
  t.ok(sink.write('c'));
  t.ok(sink.write('d'));
  t.strictSame(transport.written, ['a', 'b'], 'after a refused write nothing more reaches the transport');
  t.equal(sink.queuedBytes, 2);
  transport.room = 10;
  t.equal(sink.drain(), true, 'drained completely');
  t.strictSame(transport.written, ['a', 'b', 'c', 'd'], 'queued chunks follow in order');
  t.equal(sink.queuedBytes, 0);
  t.ok(sink.write('e'));
  t.strictSame(transport.written.at(-1), 'e', 'after a drain, writes go straight through again');
  t.strictSame(finished, []);
});

t.test('a drain that fills the transport again stops and keeps the rest queued', async (t) => {
  const transport = new FakeTransport(1);
  const sink = new QueuedStreamSink(transport, 100, () => undefined);
  sink.write('a');
  for (const chunk of ['b', 'c', 'd']) sink.write(chunk);
  transport.room = 1;
  t.equal(sink.drain(), false, 'pushed back again');
  t.strictSame(transport.written, ['a', 'b']);
  t.equal(sink.queuedBytes, 2);
  transport.room = 5;
  t.equal(sink.drain(), true);
  t.strictSame(transport.written, ['a', 'b', 'c', 'd']);
});

t.test('a consumer slower than the bound is aborted once, its listeners told, and later writes refused', async (t) => {
  const transport = new FakeTransport(1);
  const finished: QueuedStreamSink[] = [];
  const sink = new QueuedStreamSink(transport, 10, (s) => finished.push(s));
  let closes = 0;
  sink.onClose(() => (closes += 1));
  sink.write('first');
  t.ok(sink.write('x'.repeat(10)), 'exactly at the bound is still queued');
  t.notOk(sink.write('y'), 'one more character is past the bound: the stream is dropped');
  t.ok(transport.aborted, 'the connection was dropped, not ended gracefully');
  t.notOk(transport.ended);
  t.ok(sink.closed);
  t.equal(sink.queuedBytes, 0, 'the queue is released');
  t.notOk(sink.write('z'));
  sink.end();
  sink.finish();
  t.equal(closes, 1, 'close listeners run once');
  t.strictSame(finished, [sink]);
});

t.test('end() ends the transport once; a peer that went away finishes without ending', async (t) => {
  const transport = new FakeTransport(5);
  const sink = new QueuedStreamSink(transport, 10, () => undefined);
  sink.end();
  sink.end();
  t.ok(transport.ended);
  const other = new FakeTransport(5);
  const gone = new QueuedStreamSink(other, 10, () => undefined);
  gone.finish();
  t.ok(gone.closed);
  t.notOk(other.ended, 'nothing is written to a connection the peer closed');
  t.notOk(gone.write('late'));
});
