/** Request headers: a list is one header line per value, as Go's http.Header (each Impersonate-Group is one group). */
export type RequestHeaders = Record<string, string | string[]>;
