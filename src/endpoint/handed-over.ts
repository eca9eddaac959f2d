// Chunks a watch's writer hands over to the endpoint's response for good: it will never write into their memory
// again (the socket client's pushed answers: each body piece is a copy the receiver owns, socket-client.ts). The
// watch tap may then keep an event's object as a view of such a chunk instead of copying it (watch-tap.ts); a chunk
// not marked here may be reused by its writer once written, so what the tap keeps of it is copied.
const handedOver = new WeakSet<ArrayBufferLike>();

export function handOver(chunk: Uint8Array): void {
  handedOver.add(chunk.buffer);
}

export function isHandedOver(chunk: Uint8Array): boolean {
  return handedOver.has(chunk.buffer);
}
