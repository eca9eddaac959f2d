// The --exec endpoint in front of a server that serves CBOR (CBORServingAndStorage on): a client asking for CBOR gets
// the server's bytes untouched, and the trace reads them (the list's items, the got object, the watch's events) as it
// reads JSON. The scenario is wire-trace-helpers.ts's, shared with protobuf-trace.test.ts.
import { describeWireThroughEndpoint } from './wire-trace-helpers.js';

describeWireThroughEndpoint({
  name: 'CBOR',
  simOptions: { featureGates: { CBORServingAndStorage: true } },
  listAccept: 'application/cbor',
  watchAccept: 'application/cbor',
  listType: 'application/cbor',
  // kube's self-described CBOR tag.
  listPrefixHex: 'd9d9f7',
});
