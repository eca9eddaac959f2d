// kube's CBOR media types (KEP-4222): application/cbor for a whole body, application/cbor-seq for a watch. Tells
// whether an answer is CBOR without loading the decoder (cbor-body.ts).
export const CBOR = 'application/cbor';
export const CBOR_SEQ = 'application/cbor-seq';

/** Whether a Content-Type names one of kube's CBOR media types (a body, a watch, or application/apply-patch+cbor). */
export function isCborType(contentType: string | undefined): boolean {
  const t = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return t === CBOR || t === CBOR_SEQ || t.endsWith('+cbor');
}
