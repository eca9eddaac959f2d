// What a request log (kubectl's -v 6..9) sees of each HTTP exchange: the connection calls it, the CLI
// formats it. Credentials the connection knows are already masked in the headers it hands over.

/** One request as sent. */
export interface WireRequest {
  method: string;
  /** The full URL (server and path with query), as it may be shown. */
  url: string;
  /** Request headers, credentials masked. */
  headers: Record<string, string>;
  /** A long-lived body (watch). */
  stream: boolean;
  body?: string;
}

/** The log of one request, from its headers to its end. */
export interface WireCall {
  /** The answer's status line arrived (ms since the request started). */
  response(res: { status: number; headers: Record<string, string | string[] | undefined>; ms: number }): void;
  /** The request failed before an answer (network error, timeout). */
  failed(err: { message: string; ms: number }): void;
  /** A plain body was read whole: its first `bodyBytes` bytes, and its full size. */
  body(text: string, totalBytes: number): void;
  /** A stream's body ended (closed by either side, or failed). */
  closed(end: { ms: number; bytes: number; error?: string }): void;
}

export interface WireLog {
  /** How many bytes of each plain body to keep for body() (0: bodies are not kept). */
  readonly bodyBytes: number;
  begin(req: WireRequest): WireCall;
}
