/**
 * The frame's side of @turnkey/iframe-stamper's protocol. The parent page posts TURNKEY_INIT_MESSAGE_CHANNEL with a
 * MessagePort; the frame answers PUBLIC_KEY_READY on it, then each request `{type, requestId, ...}` gets one answer
 * `{type, value, requestId}`, or `{type: "ERROR", value: message, requestId}`. Requests are handled one at a time,
 * in the order they arrive.
 */
export interface FrameRequest {
  type: string;
  requestId?: string;
  value?: unknown;
  [field: string]: unknown;
}

export interface FrameAnswer {
  type: string;
  value: unknown;
}

export type FrameHandlers = Record<string, (request: FrameRequest) => Promise<FrameAnswer>>;

export function serveParent(publicKey: () => string, handlers: FrameHandlers): void {
  let port: MessagePort | undefined;
  let queue = Promise.resolve();

  const answer = async (channel: MessagePort, request: FrameRequest) => {
    const handler = Object.hasOwn(handlers, request.type) ? handlers[request.type] : undefined;
    try {
      if (!handler) throw new Error(`this frame does not handle ${JSON.stringify(request.type)} messages`);
      channel.postMessage({ ...(await handler(request)), requestId: request.requestId });
    } catch (error) {
      channel.postMessage({ type: "ERROR", value: error instanceof Error ? error.message : String(error), requestId: request.requestId });
    }
  };

  window.addEventListener("message", (event: MessageEvent<unknown>) => {
    const data = event.data as Partial<FrameRequest> | null;
    // Only the embedding page, and only once: a second channel could not be told apart from an intruder.
    if (port || event.source !== window.parent || data?.type !== "TURNKEY_INIT_MESSAGE_CHANNEL" || !event.ports[0]) return;
    const channel = event.ports[0];
    port = channel;
    channel.onmessage = (message: MessageEvent<unknown>) => {
      const request = message.data as FrameRequest | null;
      if (typeof request?.type !== "string") return;
      queue = queue.then(() => answer(channel, request));
    };
    channel.postMessage({ type: "PUBLIC_KEY_READY", value: publicKey() });
  });
}
