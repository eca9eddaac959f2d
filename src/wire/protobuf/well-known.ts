// Messages whose Go types marshal to JSON their own way rather than field by field: metav1.Time and MicroTime, resource.Quantity,
// intstr.IntOrString, metav1.FieldsV1 and ExtraValue. Each gets the message as decoded by its schema plus its raw bytes.
import { kubeTime } from '../kube-time.js';
import { MalformedProtobufError, UnsupportedProtobufError } from './errors.js';

type Decoded = Record<string, unknown>;
type CustomJson = (decoded: Decoded, raw: Uint8Array, path: string) => unknown;

export const CUSTOM_JSON: Record<string, CustomJson> = {
  Time(m, raw, path) {
    // metav1.Time: no bytes is the zero time, which marshals as null; nanos are dropped (JSON carries whole seconds).
    if (raw.length === 0) return null;
    const seconds = (m.seconds as number | undefined) ?? 0;
    const date = new Date(seconds * 1000);
    const year = date.getUTCFullYear();
    if (Number.isNaN(date.getTime()) || year < 0 || year > 9999) {
      throw new UnsupportedProtobufError(`${path}: ${seconds} seconds is outside the years 0-9999 that RFC 3339 can express`);
    }
    return kubeTime(date);
  },

  MicroTime(m, raw, path) {
    // metav1.MicroTime: as Time, but its JSON keeps microseconds (RFC3339Micro: always six digits, UTC).
    if (raw.length === 0) return null;
    const seconds = (m.seconds as number | undefined) ?? 0;
    const nanos = (m.nanos as number | undefined) ?? 0;
    const whole = CUSTOM_JSON.Time({ seconds }, raw, path) as string;
    return `${whole.slice(0, -1)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
  },

  // authorization and authentication's ExtraValue is a []string in Go and so a JSON array.
  ExtraValue: (m) => (m.items as string[] | undefined) ?? [],

  // The sim keeps a quantity's string as sent (it does not canonicalise JSON quantities either); absent is zero.
  Quantity: (m) => (m.string as string | undefined) ?? '0',

  IntOrString(m, _raw, path) {
    const type = (m.type as number | undefined) ?? 0;
    if (type === 0) return (m.intVal as number | undefined) ?? 0;
    if (type === 1) return (m.strVal as string | undefined) ?? '';
    throw new MalformedProtobufError(`${path}: IntOrString type ${type} is neither 0 (int) nor 1 (string)`);
  },

  // FieldsV1 holds JSON text (managedFields' field sets), which is the JSON value itself.
  FieldsV1(m, _raw, path) {
    const raw = m.Raw as string | undefined;
    if (raw === undefined) return null;
    try {
      return JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
    } catch (err) {
      throw new MalformedProtobufError(`${path}: FieldsV1 is not JSON: ${(err as Error).message}`);
    }
  },
};
