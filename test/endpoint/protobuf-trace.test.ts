// The --exec endpoint in front of a server that serves protobuf (the sim does, for kinds src/wire has schemas for): a
// client asking for protobuf gets the server's bytes untouched, and the trace reads them (the list's items, the
// watch's length-prefixed events) as it reads JSON. The scenario is wire-trace-helpers.ts's, shared with cbor-trace.test.ts.
import { describeWireThroughEndpoint } from './wire-trace-helpers.js';

describeWireThroughEndpoint({
  name: 'protobuf',
  listAccept: 'application/vnd.kubernetes.protobuf, application/json',
  watchAccept: 'application/vnd.kubernetes.protobuf;stream=watch, application/json',
  listType: 'application/vnd.kubernetes.protobuf',
  // `k8s\0`, kube's protobuf envelope.
  listPrefixHex: '6b387300',
});
