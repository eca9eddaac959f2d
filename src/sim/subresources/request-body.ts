// The body of a subresource POST (Eviction, Binding): JSON, or kube protobuf as typed clients (kubectl drain, a
// scheduler built on client-go) send it.
import type { IncomingMessage } from 'node:http';
import { MalformedProtobufError, UnsupportedProtobufError } from '../../wire/protobuf/errors.js';
import { protobufToJson } from '../../wire/protobuf/to-json.js';
import { badRequest } from '../status.js';
import { SimApiError } from '../api.js';
import { readBodyBytes } from '../write-handlers.js';

type Json = Record<string, any>;

export async function readSubresourceBody(req: IncomingMessage, kind: string): Promise<Json> {
  const body = await readBodyBytes(req);
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  let out: unknown;
  if (type === 'application/vnd.kubernetes.protobuf') {
    try {
      out = protobufToJson(body);
    } catch (err) {
      if (err instanceof MalformedProtobufError) throw badRequest(err.message);
      if (err instanceof UnsupportedProtobufError) throw new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the sim could not decode this protobuf body: ${err.message}`, reason: 'UnsupportedMediaType', code: 415 });
      throw err;
    }
  } else {
    try {
      out = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  }
  if (out === null || typeof out !== 'object' || Array.isArray(out)) throw badRequest(`the object provided is unrecognized (must be of type ${kind})`);
  const obj = out as Json;
  if (obj.kind !== undefined && obj.kind !== kind) throw badRequest(`the object provided is unrecognized (must be of type ${kind})`);
  return obj;
}

/** The Status kube answers a successful eviction or binding with (201). */
export const CREATED_STATUS = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
