// kube's protobuf watch stream (`application/vnd.kubernetes.protobuf;stream=watch`), read side. Each frame is a
// 4-byte big-endian length, then a bare metav1.WatchEvent (the raw serializer: no `k8s\0`, no runtime.Unknown),
// whose object.raw is the object's own enveloped protobuf (apimachinery runtime/serializer/protobuf/protobuf.go
// RawSerializer, util/framer LengthDelimitedFrameWriter; endpoints/handlers/watch.go embeds the object).
import { MalformedProtobufError } from './errors.js';
import { protobufToJson } from './to-json.js';
import { WireReader, WireType } from './wire.js';

export interface DecodedWatchEvent { type: string; object: Record<string, unknown> }

/** One frame's WatchEvent (without its length prefix) as the JSON event it stands for. */
export function decodeWatchEvent(frame: Uint8Array): DecodedWatchEvent {
  const reader = new WireReader(frame, 'metav1.WatchEvent');
  let type = '';
  let raw: Uint8Array | undefined;
  while (!reader.done()) {
    const { field, wireType, offset } = reader.tag();
    if (wireType !== WireType.LengthDelimited) throw reader.fail(`field ${field} has wire type ${wireType}, expected 2`, offset);
    const bytes = reader.bytes();
    if (field === 1) type = Buffer.from(bytes).toString('utf8');
    else if (field === 2) {
      // runtime.RawExtension: raw = 1
      const ext = new WireReader(bytes, 'metav1.WatchEvent.object');
      while (!ext.done()) {
        const t = ext.tag();
        if (t.field === 1 && t.wireType === WireType.LengthDelimited) raw = ext.bytes(); else ext.skip(t.wireType);
      }
    }
  }
  if (!type) throw new MalformedProtobufError('a protobuf watch event without a type');
  if (!raw) throw new MalformedProtobufError(`a protobuf ${type} watch event without an object`);
  return { type, object: protobufToJson(raw) };
}

/** A watch body as frames (each without its length prefix), as chunks arrive; a frame past maxFrameBytes is an error. */
export async function* watchFrames(body: AsyncIterable<Uint8Array>, maxFrameBytes: number): AsyncGenerator<{ frame: Uint8Array; bytes: number }[]> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
    const batch: { frame: Uint8Array; bytes: number }[] = [];
    while (pending.length >= 4) {
      const len = pending.readUInt32BE(0);
      if (len > maxFrameBytes) throw new MalformedProtobufError(`a protobuf watch frame of ${len} bytes, past the ${maxFrameBytes}-byte bound`);
      if (pending.length < 4 + len) break;
      batch.push({ frame: pending.subarray(4, 4 + len), bytes: 4 + len });
      pending = pending.subarray(4 + len);
    }
    if (batch.length) yield batch;
  }
  if (pending.length > 0) throw new MalformedProtobufError(`the watch body ended inside a protobuf frame (${pending.length} bytes left)`);
}
