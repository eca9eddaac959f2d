// kube's protobuf media type: `application/vnd.kubernetes.protobuf` for a whole body, with `;stream=watch` for a
// watch. Tells whether an answer is protobuf without loading src/wire's decoder.
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export function isProtobufType(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim().toLowerCase() === PROTOBUF;
}

/** A Status sent in protobuf as its JSON text; the bytes as UTF-8 when they do not decode (cut, or not protobuf). */
export async function protobufErrorText(body: Buffer): Promise<string> {
  const { protobufToJson } = await import('../../wire/protobuf/to-json.js');
  try {
    return JSON.stringify(protobufToJson(body));
  } catch {
    return body.toString('utf8');
  }
}
