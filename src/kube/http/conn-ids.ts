// Numbers the TCP connections undici uses, so http trace records can say which keep-alive
// connection carried a request (undici exposes the socket only through diagnostics channels).
import diagnostics from 'node:diagnostics_channel';

interface CreateMessage { request: object }
interface SendHeadersMessage { request: object; socket: object }

export class ConnIds {
  private tagging: number | undefined;
  private readonly callOf = new WeakMap<object, number>();
  private readonly connOfCall = new Map<number, number>();
  private readonly connOfSocket = new WeakMap<object, number>();
  private nextConn = 1;
  private subscribed = false;

  private readonly onCreate = (msg: unknown): void => {
    if (this.tagging !== undefined) this.callOf.set((msg as CreateMessage).request, this.tagging);
  };

  private readonly onSendHeaders = (msg: unknown): void => {
    const { request, socket } = msg as SendHeadersMessage;
    const call = this.callOf.get(request);
    if (call === undefined) return;
    let conn = this.connOfSocket.get(socket);
    if (conn === undefined) this.connOfSocket.set(socket, (conn = this.nextConn++));
    this.connOfCall.set(call, conn);
  };

  /** Runs `dispatch` (which must create the undici request synchronously) tagged with `call`. */
  tag<T>(call: number, dispatch: () => T): T {
    if (!this.subscribed) {
      diagnostics.subscribe('undici:request:create', this.onCreate);
      diagnostics.subscribe('undici:client:sendHeaders', this.onSendHeaders);
      this.subscribed = true;
    }
    this.tagging = call;
    try {
      return dispatch();
    } finally {
      this.tagging = undefined;
    }
  }

  /** A number for a connection kwatch opened itself (socket-client.ts), from the same sequence. */
  fresh(): number {
    return this.nextConn++;
  }

  /** The connection number that carried `call` (known once its headers were sent); forgets it. */
  take(call: number): number | undefined {
    const conn = this.connOfCall.get(call);
    this.connOfCall.delete(call);
    return conn;
  }

  close(): void {
    if (!this.subscribed) return;
    diagnostics.unsubscribe('undici:request:create', this.onCreate);
    diagnostics.unsubscribe('undici:client:sendHeaders', this.onSendHeaders);
    this.subscribed = false;
  }
}
