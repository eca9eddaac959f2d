// metav1.Time on the wire: what the sim stamps on objects and what the protobuf codec turns a Time message into.

/** RFC 3339 without fractional seconds, as metav1.Time serialises. */
export function kubeTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
